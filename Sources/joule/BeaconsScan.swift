import ArgumentParser
import JouleHardware
import JouleWorkloads

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
        var configuration = BeaconSession.Configuration(mode: .scan)
        if let duty = source.scanDuty { configuration.controller.highDuty = duty }
        configuration.alwaysListening = source.replay != nil
        // A replay as fast as it decodes: lines go out in large writes, warnings name records.
        let batch = json && !source.realtime ? source.replay : nil
        let warnings: BeaconRun.WarningStyle = batch.map { .captureRecords(path: $0) } ?? .session
        if json {
            // Touches nothing but the output buffer: this runs once per advert.
            _ = try await BeaconRun.run(configuration: configuration, source: source, warnings: warnings) { event in
                guard case .advert(let advert, _) = event else { return }
                output.buffer.appendLine(advert)
                output.lineWritten()
            } flush: {
                output.flush()
            }
            output.flush()
            return
        }
        var table = BeaconTable()
        var lastPrint: Int64?
        var latest: Int64 = 0
        let live = source.replay == nil
        _ = try await BeaconRun.run(configuration: configuration, source: source, warnings: warnings) { event in
            guard case .advert(let advert, let at?) = event else { return }
            latest = max(latest, at)
            table.observe(advert, at: at)
            if let last = lastPrint, at - last < 1_000_000 { return }
            lastPrint = at
            if live { BeaconText.printTable(table.rows(at: at), at: at) }
        } flush: {
            output.flush()
        }
        BeaconText.printTable(table.rows(at: latest), at: latest)
        output.flush()
    }
}
