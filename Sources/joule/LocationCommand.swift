import ArgumentParser
import JouleHardware
import JouleLocation

/// `joule location`: one-shot fixes and standard updates with the receiver off whenever
/// nothing needs it, from live gpsd, GeoClue2, a replay or a fixed position.
struct LocationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "One-shot fixes, updates, regions, visits and significant changes from gpsd, GeoClue2, a gpsd replay or a fixed position.",
        subcommands: [
            LocationOnceCommand.self, LocationWatchCommand.self, LocationMonitorCommand.self, LocationVisitsCommand.self,
            LocationSignificantCommand.self, LocationRecordCommand.self,
        ]
    )
}

extension LocationSourceSpec: CommandLineSpec {
    static func parse(spec: String) -> Result<LocationSourceSpec, SpecError> { parse(spec) }
}

extension GPSDAddress: CommandLineSpec {
    static func parse(spec: String) -> Result<GPSDAddress, GPSDAddressError> { parse(spec) }
}

/// Where fixes come from, the receiver's TTFF, the accuracy and the output, shared by every
/// subcommand.
struct LocationOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Where fixes come from: auto (gpsd if it answers, else GeoClue), gpsd, geoclue (GeoClue2 on the system bus), replay:FILE or fixed:LAT,LON[,ACCURACY] (default: auto).",
            valueName: "source"))
    var source: Spec<LocationSourceSpec>?

    @Option(parsing: .unconditional, help: ArgumentHelp("Where gpsd listens (default localhost:2947; IPv6 as [::1]:2947).", valueName: "host:port"))
    var gpsd: Spec<GPSDAddress>?

    @Option(parsing: .unconditional, help: ArgumentHelp("Replay a `gpspipe -w` recording, on its own time (as --source replay:FILE).", valueName: "file"))
    var replay: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Horizontal accuracy wanted, metres.", valueName: "m"))
    var accuracy: Double = 100

    @Option(parsing: .unconditional, help: ArgumentHelp("Time to first fix after the receiver goes on, seconds.", valueName: "s"))
    var ttff: Double = 0

    @Flag(help: "One JSON line per event (NDJSON).")
    var json = false

    func validate() throws {
        try source?.check()
        try gpsd?.check()
        if source != nil && replay != nil { throw ValidationError("--replay FILE and --source are alternatives: give one") }
        if let replay, replay.isEmpty { throw ValidationError("--replay needs a file") }
        guard accuracy.isFinite, accuracy > 0 else { throw ValidationError("--accuracy must be a number of metres above 0, not \(accuracy)") }
        guard ttff.isFinite, ttff >= 0, ttff <= 86_400 else { throw ValidationError("--ttff must be 0 to 86400 seconds, not \(ttff)") }
    }

    var spec: LocationSourceSpec { replay.map { .replay(path: $0) } ?? source?.value ?? .auto }

    /// The opened source; one that cannot be opened (gpsd not answering, GeoClue not on the
    /// bus, a replay that cannot be read) ends the command. `distance` is GeoClue's
    /// DistanceThreshold.
    func open(distance: Double = 0) async throws -> LocationSource {
        do throws(LocationError) {
            return try await LocationSource.open(
                spec, ttffMicros: LocationOptions.micros(ttff), now: WallClock.micros(), gpsd: gpsd?.value ?? .standard,
                accuracyM: accuracy, distanceM: distance)
        } catch {
            throw error.isInputError ? JouleExit.input("\(error)", command: "location") : JouleExit.system("\(error)", command: "location")
        }
    }

    static func micros(_ seconds: Double) -> Int64 { Int64((seconds * 1_000_000).rounded()) }

    /// The opened source, a printer for it (a live source's lines go out at once), and for a
    /// live source a SIGINT/SIGTERM trap that ends its reads, so the engine prints what it has
    /// and the summary. Cancel the trap and `close()` the source when done.
    func start(distance: Double = 0) async throws -> (receiver: LocationSource, printer: Printer, signals: SignalTrap?) {
        let receiver = try await open(distance: distance)
        let printer = Printer(json: json, live: isLive)
        return (receiver, printer, receiver.stopper.map { stop in SignalTrap { _ in stop() } })
    }

    /// Whether fixes come on the wall clock (gpsd, GeoClue), as they happen, rather than from a
    /// recording as fast as they are read.
    var isLive: Bool {
        switch spec {
        case .replay, .fixed: false
        case .auto, .gpsd, .geoclue: true
        }
    }

    /// Prints events as they come: a replay's into one buffer flushed at the end, a live
    /// source's each as it happens (a reader of a live `watch` sees every fix then).
    final class Printer {
        let output = StandardOutput()
        let json: Bool
        let live: Bool
        init(json: Bool, live: Bool = false) {
            self.json = json
            self.live = live
        }

        func emit(_ event: LocationEvent) {
            if json {
                output.buffer.appendLine(event.jsonObject)
            } else {
                output.buffer.append(event.text { ClockTime.dateTime(Double($0) / 1_000_000) } + "\n")
            }
            if live { output.flush() } else { output.lineWritten() }
        }
    }
}

/// `joule location once`: requestLocation.
struct LocationOnceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "once",
        abstract: "One fix: the receiver goes on, and off at the first fix as accurate as asked, or at the timeout with the best seen.",
        discussion: """
            Prints {"event":"location","fix":…,"accuracyMet":true|false} between the receiver's on and off events, \
            then a summary. Exit 0 with a fix (accuracyMet false after the timeout), 1 with no fix at all.
            """)

    @OptionGroup var options: LocationOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Give up waiting for the accuracy after this long from the receiver going on, seconds.", valueName: "s"))
    var timeout: Double = 30

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be above 0 and at most 86400 seconds, not \(timeout)") }
    }

    func run() async throws {
        var (receiver, printer, signals) = try await options.start()
        defer { printer.output.flush() }
        defer { signals?.cancel() }
        let request = OnceRequest(accuracyM: options.accuracy, timeoutMicros: LocationOptions.micros(timeout))
        do throws(LocationError) {
            try await LocationOnce.run(request, receiver: &receiver, emit: printer.emit)
            await receiver.close()
        } catch {
            await receiver.close()
            printer.output.flush()
            throw JouleExit.system("\(error)", command: "location once")
        }
    }
}

/// `joule location watch`: standard updates.
struct LocationWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Fixes as accurate as asked, each at least --distance from the last one delivered; held in deferred batches, or paused while still.",
        discussion: """
            Prints {"event":"location","fix":…} for the first fix and every later one at least --distance metres from \
            the last delivered (fixes less accurate than --accuracy are not delivered). With --defer-distance or \
            --defer-time, fixes are held and printed as {"event":"deferred","fixes":[…],"reason":"distance"|"time"|"stop"}. \
            With --pause-when-stationary S, the first fix S seconds after the device last moved more than 25 m prints \
            {"event":"paused","reason":"stationary","time":T} and turns the receiver off; it then takes one fix every \
            --probe seconds, and one more than 100 m from where it paused prints {"event":"resumed","reason":"moved","time":T}. \
            With --give-up S, S seconds without a fix as accurate as asked (or 10 % better than the best) print \
            {"event":"gaveUp","time":T,"bestAccuracyM":…,"retryAt":T} and turn the receiver off until --retry seconds later. \
            In Low Power Mode or at thermal state serious or worse, the accuracy is at least 1 km, the deferral distance \
            and time and the probe interval double, and {"event":"policy","lowPowerMode":…,"thermalState":…} is printed first.
            """)

    @OptionGroup var options: LocationOptions
    @OptionGroup var policy: LocationPolicyOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Deliver a fix only this far from the last one delivered, metres.", valueName: "m"))
    var distance: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Hold fixes until one lies this far from the batch's first, metres.", valueName: "m"))
    var deferDistance: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Hold fixes until one comes this long after the batch's first, seconds.", valueName: "s"))
    var deferTime: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Auto-pause: after this long within 25 m (or the fix's accuracy), turn the receiver off and probe, seconds.", valueName: "s"))
    var pauseWhenStationary: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("While paused, take one probe fix this often, seconds (default 300).", valueName: "s"))
    var probe: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Give up after this long without a fix as accurate as asked (or 10 % better than the best), seconds.", valueName: "s"))
    var giveUp: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("After giving up, try again this much later, seconds (default 300).", valueName: "s"))
    var retry: Double?

    func validate() throws {
        if let giveUp, !(giveUp.isFinite && giveUp > 0 && giveUp <= 86_400) {
            throw ValidationError("--give-up must be above 0 and at most 86400 seconds, not \(giveUp)")
        }
        if let retry {
            guard giveUp != nil else { throw ValidationError("--retry applies only with --give-up") }
            guard retry.isFinite, retry > 0, retry <= 86_400 else { throw ValidationError("--retry must be above 0 and at most 86400 seconds, not \(retry)") }
        }
        if let pauseWhenStationary, !(pauseWhenStationary.isFinite && pauseWhenStationary > 0 && pauseWhenStationary <= 86_400) {
            throw ValidationError("--pause-when-stationary must be above 0 and at most 86400 seconds, not \(pauseWhenStationary)")
        }
        if let probe {
            guard pauseWhenStationary != nil else { throw ValidationError("--probe applies only with --pause-when-stationary") }
            guard probe.isFinite, probe > 0, probe <= 86_400 else { throw ValidationError("--probe must be above 0 and at most 86400 seconds, not \(probe)") }
        }
        guard distance.isFinite, distance >= 0 else { throw ValidationError("--distance must be 0 or more metres, not \(distance)") }
        if let deferDistance, !(deferDistance.isFinite && deferDistance > 0) {
            throw ValidationError("--defer-distance must be a number of metres above 0, not \(deferDistance)")
        }
        if let deferTime, !(deferTime.isFinite && deferTime > 0 && deferTime <= 86_400) {
            throw ValidationError("--defer-time must be above 0 and at most 86400 seconds, not \(deferTime)")
        }
    }

    func run() async throws {
        var (receiver, printer, signals) = try await options.start(distance: distance)
        defer { printer.output.flush() }
        defer { signals?.cancel() }
        let request = WatchRequest(
            accuracyM: options.accuracy, distanceM: distance, deferDistanceM: deferDistance,
            deferTimeMicros: deferTime.map(LocationOptions.micros),
            pauseWhenStationaryMicros: pauseWhenStationary.map(LocationOptions.micros),
            probeMicros: LocationOptions.micros(probe ?? 300), giveUpMicros: giveUp.map(LocationOptions.micros),
            retryMicros: LocationOptions.micros(retry ?? 300))
        // A live session follows the daemon's Low Power Mode and thermal state as they change.
        let feed = LocationPolicyFeed(try await self.policy.read())
        let following = options.isLive ? await self.policy.follow(into: feed) : nil
        defer { following?.cancel() }
        let delivered = await LocationWatch.run(request, policy: feed, receiver: &receiver, emit: printer.emit) != nil
        await receiver.close()
        guard delivered else {
            throw JouleExit.system("\(receiver.failure ?? LocationError.noFix(source: receiver.name))", command: "location watch")
        }
    }
}
