import JouleHardware
import JouleEnergy

/// The beacon engine's loop: runs a `BeaconSession` over an `HCITransport`. Events in, decoded
/// adverts to the session, radio states out as commands, results to `emit`. The same loop
/// serves live scans, replays and tests; on replay the capture's timestamps are the clock and
/// the session starts at the first plausible one.
///
/// It stops when the transport's events end (a capture's end, `stopEvents()` from a signal),
/// when the session finishes (`range --once`), or when the task running it is cancelled.
public struct BeaconSessionRunner {
    /// An event that did not decode cleanly; the loop carries on.
    public struct DecodeProblem: Sendable, Equatable {
        public var error: DecodeError
        /// The record's number in the capture (replay).
        public var captureIndex: Int?
        /// The session's time at the event; nil before a replay's session started.
        public var sessionTime: Int64?
    }

    public let configuration: BeaconSession.Configuration
    /// Created at `start`, or on replay at the first event's time.
    public private(set) var session: BeaconSession?
    public var commander: ScanCommander
    /// Called before each event with its time, e.g. to pace a replay in real time.
    public var pace: ((Int64) async -> Void)?
    public var warn: (DecodeProblem) -> Void = { _ in }
    /// The energy policy's input; checked before every event.
    public var policy: ScanPolicySwitch?
    /// Where the policy comes from while the loop runs (live scans): a running energy engine,
    /// followed by `policy` (created when none is given). A failure to start it is reported
    /// to `energyUnavailable` and the scan goes on as asked.
    public var energyState: (@Sendable () async throws -> any EnergyConditions)?
    public var energyUnavailable: @Sendable (String) -> Void = { _ in }
    /// Why a replay ended early (truncated or damaged capture), once `run` has returned.
    public private(set) var captureWarning: BTSnoopWarning?
    /// Events taken from the transport per call.
    public var batchSize = 1024
    /// Where region states and RSSI go for `/metrics` (the daemon's monitors); nil elsewhere.
    public var gauges: BeaconRegionGauges?

    public init(configuration: BeaconSession.Configuration, start: Int64?, commander: ScanCommander) {
        self.configuration = configuration
        self.commander = commander
        session = start.map { BeaconSession(configuration: configuration, start: $0) }
    }

    /// Runs until the events end or the session finishes, then turns the radio off (also when
    /// an error is thrown after scanning began). The transport stays open: its creator closes it.
    public mutating func run(emit: (BeaconSession.Output) -> Void) async throws(HCITransportError) {
        let follower = startFollowingEnergyState()
        defer { follower?.cancel() }
        let transport = commander.transport
        var failure: HCITransportError?
        let ended: Result<Void, HCITransportError> = await withTaskCancellationHandler {
            do throws(HCITransportError) { return .success(try await loop(emit)) } catch { return .failure(error) }
        } onCancel: {
            transport.stopEvents()
        }
        if case .failure(let error) = ended { failure = error }
        if failure == nil {
            do throws(HCITransportError) { try await commander.apply(.off) } catch { failure = error }
        } else {
            try? await commander.apply(.off)
        }
        if let replay = transport as? ReplayHCITransport, let warning = await replay.captureWarning {
            captureWarning = warning
        }
        if let failure { throw failure }
    }

    private mutating func startFollowingEnergyState() -> Task<Void, Never>? {
        guard let energyState else { return nil }
        let policy = self.policy ?? ScanPolicySwitch()
        self.policy = policy
        let unavailable = energyUnavailable
        return Task {
            do throws(any Error) { try await policy.follow(energyState) } catch { unavailable("\(error)") }
        }
    }

    private mutating func loop(_ emit: (BeaconSession.Output) -> Void) async throws(HCITransportError) {
        if let session { try await handle(session.initialOutputs, emit) }
        while session?.finished != true {
            let batch = try await commander.transport.nextEvents(limit: batchSize)
            if batch.isEmpty { break }
            if quietScan(batch, emit) { continue }
            for record in batch {
                if session == nil, let start = record.timestampMicros, BeaconTime.isPlausible(start) {
                    let started = BeaconSession(configuration: configuration, start: start)
                    session = started
                    try await handle(started.initialOutputs, emit)
                }
                try await process(record, emit)
                if session?.finished == true { break }
            }
        }
        if var session, !session.finished {
            let outputs = session.advance(to: session.now, inclusive: true)
            self.session = session
            try await handle(outputs, emit)
        }
    }

    /// A scan's stream while nothing else can happen (a replay scanning as fast as it decodes):
    /// the batch's adverts are decoded and emitted in one pass and the session's time moves
    /// once, to where event-by-event processing would have left it. False when the batch
    /// needs the full path.
    private mutating func quietScan(_ batch: [HCIEventRecord], _ emit: (BeaconSession.Output) -> Void) -> Bool {
        guard case .scan = configuration.mode, pace == nil, policy == nil, var now = session?.now,
            session?.isQuiet == true
        else { return false }
        for record in batch {
            let stamped = record.timestampMicros.flatMap { BeaconTime.isPlausible($0) ? $0 : nil }
            now = max(stamped ?? now, now)
            let time = now
            let problem = Self.decode(record) { emit(.advert($0, at: time)) }
            if let problem { warn(DecodeProblem(error: problem, captureIndex: record.captureIndex, sessionTime: time)) }
        }
        let outputs = session?.advance(to: now) ?? []
        assert(outputs.isEmpty, "a quiet session moved time with effect")
        return true
    }

    /// One event: time moves to it, then its adverts are decoded, once, and go to the session
    /// (and, scanning, straight to `emit`). The session is changed in place, never copied:
    /// this runs once per event of a capture that may hold millions.
    private mutating func process(_ record: HCIEventRecord, _ emit: (BeaconSession.Output) -> Void)
        async throws(HCITransportError)
    {
        let scanning = if case .scan = configuration.mode { true } else { false }
        guard let now = session?.now else {
            // Before a replay's first plausible timestamp there is no session time yet: a scan
            // still shows what was heard; nothing else can use it.
            if scanning {
                let problem = Self.decode(record) { emit(.advert($0, at: nil)) }
                if let problem { warn(DecodeProblem(error: problem, captureIndex: record.captureIndex, sessionTime: nil)) }
            }
            return
        }
        // Corrupt timestamps (negative, beyond year 9999) and steps back keep the current time.
        let stamped = record.timestampMicros.flatMap { BeaconTime.isPlausible($0) ? $0 : nil }
        let time = max(stamped ?? now, now)
        if let pace { await pace(time) }
        var outputs: [BeaconSession.Output] = []
        if let wanted = policy?.current, wanted != session?.controller.policy {
            outputs += session?.setPolicy(wanted) ?? []
        }
        outputs += session?.advance(to: time) ?? []
        if !outputs.isEmpty {
            try await handle(outputs, emit)
            outputs.removeAll()
        }
        let listens = !configuration.regions.isEmpty
        let gauges = self.gauges
        let problem = Self.decode(record) { advert in
            if scanning { emit(.advert(advert, at: time)) }
            guard listens else { return }
            outputs += session?.receive(advert) ?? []
            if let gauges, let rssi = advert.rssi, let (key, _) = BeaconKey.of(advert.frame) {
                gauges.heard(key, rssi: Int(rssi), at: time)
            }
        }
        if let problem { warn(DecodeProblem(error: problem, captureIndex: record.captureIndex, sessionTime: time)) }
        if !outputs.isEmpty { try await handle(outputs, emit) }
    }

    /// The one decode path: every beacon advert of the event, stamped with the capture's time.
    private static func decode(_ record: HCIEventRecord, _ body: (BeaconAdvert) -> Void) -> DecodeError? {
        guard !record.bytes.isEmpty else { return nil }
        return record.bytes.withUnsafeBytes { raw in
            BeaconAdvert.forEach(inEvent: raw, timestampMicros: record.timestampMicros, body)
        }
    }

    private mutating func handle(_ outputs: [BeaconSession.Output], _ emit: (BeaconSession.Output) -> Void)
        async throws(HCITransportError)
    {
        for output in outputs {
            if case .radio(_, let state) = output { try await commander.apply(state) }
            if case .region(let event) = output { gauges?.record(event) }
            emit(output)
        }
    }
}
