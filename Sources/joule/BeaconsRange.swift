import ArgumentParser
import JouleWire
import JouleHardware
import JouleWorkloads

/// `joule beacons range --region SPEC... [--interval S] [--once] [--json]`.
struct BeaconsRange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "range",
        abstract: "Every interval, the beacons in the regions sorted by distance (like Core Location ranging).")

    @OptionGroup var source: BeaconSourceOptions
    @OptionGroup var regionOptions: RegionOptions

    @Option(parsing: .unconditional, help: "Seconds between results.")
    var interval: Double = 1

    @Flag(help: "One fix, like requestLocation: scan at high duty until every distance is steady, print it, turn the radio off.")
    var once = false

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: "With --once, give up after this many seconds (default: 30).")
    var timeoutOption: Double?

    /// `--timeout`, 30 s unless given (Optional so that one given without --once is refused).
    var timeout: Double { timeoutOption ?? 30 }

    @Option(name: .customLong("rssi-window"), parsing: .unconditional, help: "Seconds of RSSI samples the running-average filter keeps.")
    var rssiWindow: Double = 20

    @Option(name: .customLong("rssi-trim"), parsing: .unconditional, help: "Fraction of samples trimmed from each end before averaging.")
    var rssiTrim: Double = 0.1

    @Option(name: .customLong("distance-coefficients"), parsing: .unconditional, help: "A,B,C of distance = A*(rssi/txPower)^B + C.")
    var distanceCoefficients = Spec<DistanceModel>(argument: "0.42093,6.9476,0.54992")

    @Flag(help: "One JSON line per beacon per interval.")
    var json = false

    func validate() throws {
        guard interval > 0, interval.isFinite else { throw ValidationError("--interval must be a positive number of seconds") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        if timeoutOption != nil && !once { throw ValidationError("--timeout applies to --once only") }
        guard rssiWindow > 0, rssiWindow.isFinite else { throw ValidationError("--rssi-window must be a positive number of seconds") }
        guard (0..<0.5).contains(rssiTrim) else { throw ValidationError("--rssi-trim must be at least 0 and below 0.5") }
        try distanceCoefficients.check { _ in "--distance-coefficients must be three numbers A,B,C" }
    }

    func run() async throws {
        let regions = regionOptions.regions
        var configuration = BeaconSession.Configuration(
            mode: once
                ? .rangeOnce(interval: .seconds(clamping: interval), timeout: .seconds(clamping: timeout))
                : .range(interval: .seconds(clamping: interval)),
            regions: regions)
        configuration.ranger = BeaconRanger(
            regions: regions, model: distanceCoefficients.value ?? DistanceModel(), window: .seconds(clamping: rssiWindow), trim: rssiTrim)
        if let duty = source.scanDuty { configuration.controller.highDuty = duty }
        configuration.alwaysListening = source.replay != nil
        let output = StandardOutput()
        var result: (steady: Bool, rows: [RangedBeacon])?
        let session = try await BeaconRun.run(configuration: configuration, source: source) { event in
            switch event {
            case .ranging(let time, let rows):
                if json {
                    for row in rows { output.buffer.appendLine(row.jsonObject) }
                } else {
                    BeaconText.printRanging(rows, at: time)
                }
            case .finished(_, let steady, let rows):
                result = (steady, rows)
            default:
                break
            }
        } flush: {
            output.flush()
        }
        guard once else { return }
        guard let result else {
            let end = session.map { BeaconText.time($0.now) } ?? "its start"
            Console.error("joule beacons range --once: the capture ended (at \(end)) before distances were steady")
            throw ExitCode(1)
        }
        guard !result.rows.isEmpty else {
            Console.error("joule beacons range --once: no beacon of the regions heard within \(JSONValue.from(timeout).serialized) s")
            throw ExitCode(1)
        }
        if !result.steady {
            Console.error("warning: distances were not steady within \(JSONValue.from(timeout).serialized) s; printing the latest")
        }
        if json {
            for row in result.rows { output.buffer.appendLine(row.jsonObject) }
            output.flush()
        } else if let first = result.rows.first {
            BeaconText.printRanging(result.rows, at: first.timestampMicros)
        }
    }
}
