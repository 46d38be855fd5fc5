import ArgumentParser
import JouleHardware
import JouleLocation

extension CircularRegion: CommandLineSpec {
    static func parse(spec: String) -> Result<CircularRegion, SpecError> {
        do throws(SpecError) { return .success(try CircularRegion(spec: spec)) } catch { return .failure(error) }
    }
}

/// `joule location monitor`: geographic regions, with adaptive sampling.
struct LocationMonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Report entering and leaving circular regions, with the receiver off until a region could have been crossed.",
        discussion: """
            Prints {"event":"regionState","region":NAME,"state":"inside"|"outside"} once a fix decides a region, then \
            {"event":"regionEnter"|"regionExit","region":NAME,"fix":…}. Inside is a distance to the centre of at most the \
            radius; outside is more than the radius plus max(20 m, the fix's accuracy); a fix less accurate than the radius \
            decides nothing. After a fix as accurate as --accuracy (or the most accurate within 30 s) at distance d from \
            the nearest boundary, the receiver is off for (d - accuracy) / --max-speed seconds, at least 5 s and at most \
            15 min. --exec runs with JOULE_EVENT (enter or exit), JOULE_REGION, JOULE_LATITUDE, JOULE_LONGITUDE and \
            JOULE_TIMESTAMP set. Low Power Mode and heat do not relax monitoring.
            """)

    @OptionGroup var options: LocationOptions

    @Option(
        name: .customLong("region"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp("A region as NAME=LAT,LON,RADIUS_M (repeatable).", valueName: "spec"))
    var regions: [Spec<CircularRegion>] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Shell command run on each entry and exit (see above).", valueName: "cmd"))
    var exec: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The fastest the device moves, m/s: how soon a region could be crossed.", valueName: "mps"))
    var maxSpeed: Double = 30

    func validate() throws {
        guard !regions.isEmpty else { throw ValidationError("at least one --region NAME=LAT,LON,RADIUS_M is required") }
        do throws(CircularRegion.SpecError) { _ = try distinct() } catch { throw ValidationError(error.description) }
        guard maxSpeed.isFinite, maxSpeed > 0, maxSpeed <= 1000 else {
            throw ValidationError("--max-speed must be above 0 and at most 1000 m/s, not \(maxSpeed)")
        }
        if let exec, exec.allSatisfy(\.isWhitespace) { throw ValidationError("--exec needs a command") }
    }

    private func distinct() throws(CircularRegion.SpecError) -> [CircularRegion] {
        try CircularRegion.distinct(regions.map { ($0.text, $0.parsed) })
    }

    func run() async throws {
        var (receiver, printer, signals) = try await options.start()
        defer { signals?.cancel() }
        defer { printer.output.flush() }
        let hooks = exec.map { HookRunner(command: $0, report: { Console.error("joule location monitor: \($0)") }) }
        let request = MonitorRequest(
            regions: (try? distinct()) ?? [],
            sampling: SamplingRequest(accuracyM: options.accuracy, maxSpeedMps: maxSpeed))
        let summary = await LocationMonitor.run(request, receiver: &receiver) { event in
            printer.emit(event)
            guard let hooks, let environment = event.hookEnvironment else { return }
            printer.output.flush()
            hooks.run(environment: environment.variables)
        }
        await hooks?.finish()
        await receiver.close()
        guard summary != nil else {
            throw JouleExit.system("\(receiver.failure ?? LocationError.noFix(source: receiver.name))", command: "location monitor")
        }
    }
}
