import JouleHardware

/// GeoClue2 as a location receiver, on the wall clock: one GeoClue client (`GeoClueClient`),
/// started while the engine has the receiver on and stopped while it is off, so GeoClue can
/// turn its sources off. Fixes come from `LocationUpdated`, with source `geoclue`.
///
/// - The level asked for is the coarsest that meets the requested accuracy
///   (`GeoClueAccuracyLevel.coarsest(meeting:)`); `requestAccuracy` changes it, at once when the
///   receiver is on (GeoClue reads the level at Start, so the client is restarted), else at the
///   next turn-on.
/// - GeoClue leaving the bus is a `.trouble` naming it; when its name returns, the client is
///   created again (and started, if the receiver is on).
/// - GeoClue refusing joule (AccessDenied) is reported once as `.trouble`, then the session
///   ends: `failure` holds the error, which names the whitelist entry that lets joule in.
public struct GeoClueReceiver: LocationReceiver, Sendable {
    public let client: GeoClueClient
    public let startTime: Int64?
    public var endTime: Int64? { nil }
    public var name: String { "geoclue" }
    /// The accuracy the engine wants, metres.
    public private(set) var requestedAccuracyM: Double
    /// What the client asks GeoClue for (the level from `requestedAccuracyM`).
    public private(set) var settings: GeoClueClient.Settings
    public private(set) var failure: LocationError?
    public private(set) var isOn = false
    /// The level set on GeoClue's client, when one exists.
    private var clientLevel: GeoClueAccuracyLevel?
    /// Troubles to report before anything else.
    private var pending: [ReceiverRead] = []
    /// Told to end (`GeoClueClient.interrupt`): every read is `.end`.
    private var interrupted = false

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` in `environment`, else the standard
    /// socket) and creates joule's GeoClue client for `accuracyM`, with `DistanceThreshold`
    /// `distanceM` and `TimeThreshold` `timeThresholdS`. The receiver stays off.
    public static func open(
        accuracyM: Double, distanceM: Double = 0, timeThresholdS: UInt32 = 0, environment: [String: String]? = nil,
        callTimeout: Duration = .seconds(10)
    ) async throws(LocationError) -> GeoClueReceiver {
        let bus: BusConnection
        do throws(BusError) { bus = try await BusConnection.system(environment: environment) } catch {
            throw .sourceFailed(source: "geoclue", reason: "\(GeoClueError.unavailable(detail: "cannot connect to the system bus: \(error)"))")
        }
        let client: GeoClueClient
        do throws(GeoClueError) { client = try await GeoClueClient.open(bus: bus, callTimeout: callTimeout) } catch {
            throw .sourceFailed(source: "geoclue", reason: "\(error)")
        }
        let threshold = distanceM.isFinite && distanceM > 0 ? UInt32(min(distanceM.rounded(.down), Double(UInt32.max))) : 0
        var receiver = GeoClueReceiver(
            client: client, accuracyM: accuracyM,
            settings: .init(level: GeoClueAccuracyLevel.coarsest(meeting: accuracyM), distanceThresholdM: threshold, timeThresholdS: timeThresholdS))
        do throws(GeoClueError) {
            try await client.createClient(receiver.settings)
            receiver.clientLevel = receiver.settings.level
        } catch {
            await client.close()
            throw .sourceFailed(source: "geoclue", reason: "\(error)")
        }
        return receiver
    }

    init(client: GeoClueClient, accuracyM: Double, settings: GeoClueClient.Settings) {
        self.client = client
        requestedAccuracyM = accuracyM
        self.settings = settings
        startTime = WallClock.micros()
    }

    /// Asks GeoClue for the coarsest level that meets `metres` from now on.
    public mutating func requestAccuracy(_ metres: Double) async {
        requestedAccuracyM = metres
        settings.level = GeoClueAccuracyLevel.coarsest(meeting: metres)
        guard isOn, client.clientPath != nil, clientLevel != settings.level else { return }
        do throws(GeoClueError) {
            try await client.setLevel(settings.level)
            clientLevel = settings.level
        } catch {
            report(error)
        }
    }

    public mutating func turnOn(at time: Int64) async {
        isOn = true
        await start()
    }

    public mutating func turnOff(at time: Int64) async {
        isOn = false
        do throws(GeoClueError) { try await client.stop() } catch {
            if error != .vanished { report(error) }
        }
    }

    /// Stops GeoClue's client and waits on the wall clock until `time`.
    public mutating func sleep(until time: Int64) async {
        await turnOff(at: time)
        // Waits on GeoClue's events, not a timer, so an interrupt (SIGINT) ends the sleep at
        // once; what GeoClue says meanwhile (it left, it came back) is kept for the next read.
        var troubles: [ReceiverRead] = []
        while !interrupted, WallClock.micros() < time {
            let read = await next(before: time)
            guard case .trouble = read else { break }
            troubles.append(read)
        }
        pending = troubles + pending
    }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if failure != nil || interrupted { return .end }
            // Off with nothing to wait for: a live source has nothing more to say.
            if !isOn && deadline == nil { return .end }
            let instant = deadline.map { ContinuousClock.now + .microseconds(max(0, $0 - WallClock.micros())) }
            guard let event = await client.nextEvent(before: instant) else { return deadline == nil ? .end : .deadline }
            switch event {
            case .locationUpdated(let path, let location):
                guard isOn, path == client.clientPath else { continue }
                do throws(GeoClueError) {
                    return .fix(try await client.location(at: location, receivedMicros: WallClock.micros()))
                } catch {
                    // GeoClue gone meanwhile: its NameOwnerChanged follows and says so.
                    if error != .vanished { report(error) }
                }
            case .vanished:
                clientLevel = nil
                report(.vanished)
            case .interrupted:
                interrupted = true
                return .end
            case .appeared:
                // A new GeoClue: joule's client went with the old one (and is created again),
                // unless this is GeoClue's first owner, activated by joule's CreateClient.
                if client.clientPath == nil { clientLevel = nil }
                if isOn { await start() }
            }
        }
    }

    /// Stops and deletes the client, and closes the bus connection.
    public func close() async { await client.close() }

    /// Creates the client if GeoClue lost it, brings its level up to date, and starts it.
    private mutating func start() async {
        guard failure == nil else { return }
        do throws(GeoClueError) {
            if client.clientPath == nil {
                try await client.createClient(settings)
                clientLevel = settings.level
            } else if clientLevel != settings.level {
                try await client.setLevel(settings.level)
                clientLevel = settings.level
            }
            client.discardPendingLocations()
            try await client.start()
        } catch {
            report(error)
        }
    }

    /// A failure as the engine sees it: a `.trouble` event; AccessDenied also ends the session.
    private mutating func report(_ error: GeoClueError) {
        pending.append(.trouble(message: "\(error)", timeMicros: WallClock.micros()))
        if case .accessDenied = error { failure = .sourceFailed(source: name, reason: "\(error)") }
    }
}
