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
        var configuration = BeaconSession.Configuration(mode: .scan)
        if let duty = source.scanDuty { configuration.controller.highDuty = duty }
        configuration.alwaysListening = source.replay != nil
        // A replay as fast as it decodes: lines go out in large writes, warnings name records.
        let batch = json && !source.realtime ? source.replay : nil
        var table = BeaconTable()
        var lastPrint: Int64?
        var latest: Int64 = 0
        let live = source.replay == nil
        _ = try await BeaconRun.run(
            configuration: configuration, source: source, warnings: batch.map { .captureRecords(path: $0) } ?? .session
        ) { event in
            guard case .advert(let advert, let at) = event else { return }
            if json {
                output.buffer.appendLine(advert)
                output.lineWritten()
                return
            }
            guard let at else { return }
            let time = at
            latest = max(latest, time)
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
}
