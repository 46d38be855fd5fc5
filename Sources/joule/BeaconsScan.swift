import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule beacons scan [--json]`.
struct BeaconsScan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show beacons as they are heard: a table, or one JSON line per beacon advert with --json.")

    @OptionGroup var source: BeaconSourceOptions

    @Flag(help: "One JSON line per decoded beacon advert.")
    var json = false

    func run() async throws {
        let output = StandardOutput()
        if json, let replay = source.replay, !source.realtime {
            try Self.decodeFast(replay, into: output)
            return
        }
        var configuration = BeaconSession.Configuration(mode: .scan)
        if let duty = source.scanDuty { configuration.controller.highDuty = duty }
        configuration.alwaysListening = source.replay != nil
        var table = BeaconTable()
        var lastPrint: Int64?
        var latest: Int64 = 0
        let live = source.replay == nil
        _ = try await BeaconRun.run(configuration: configuration, source: source) { event in
            guard case .advert(let advert) = event else { return }
            let time = advert.timestampMicros ?? latest
            latest = max(latest, time)
            if json {
                output.buffer.appendLine(advert)
                output.lineWritten()
                return
            }
            table.observe(advert, at: time)
            if let last = lastPrint, time - last < 1_000_000 { return }
            lastPrint = time
            if live { BeaconText.printTable(table.rows(at: time), at: time) }
        } flush: {
            output.flush()
        }
        if !json { BeaconText.printTable(table.rows(at: latest), at: latest) }
        output.flush()
    }

    /// The replay fast path of `scan --json`: records straight from the reader's buffer to
    /// the output buffer, with no per-advert allocation beyond the line itself.
    static func decodeFast(_ path: String, into output: StandardOutput) throws {
        let reader: BTSnoopReader
        do throws(BTSnoopError) { reader = try BTSnoopReader(path: path) } catch {
            Console.error("joule beacons: \(error)")
            throw ExitCode(1)
        }
        var warnings = 0
        while let record = reader.next() {
            guard record.type == .event, record.received else { continue }
            let problem = BeaconAdvert.forEach(inEvent: record.payload, timestampMicros: record.timestampMicros) { advert in
                output.buffer.appendLine(advert)
            }
            output.lineWritten()
            if let problem {
                warnings += 1
                if warnings <= 20 { Console.error("warning: \(path): record \(record.index): \(problem)") }
            }
        }
        output.flush()
        if warnings > 20 { Console.error("warning: \(path): \(warnings - 20) more records with decode problems") }
        if let warning = reader.warning { Console.error("warning: \(warning)") }
    }
}
