import ArgumentParser
import JouleHardware
import JouleWorkloads
import JouleClient

/// `joule export [--textfile DIR]`: the running daemon's metrics, for people who run no
/// `/metrics` listener.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write joule daemon's Prometheus metrics for node_exporter's textfile collector.",
        discussion: """
            Asks joule daemon (org.joule.Energy1 on the session or system bus; GetMetrics) for \
            the metrics its /metrics endpoint serves, whether or not that endpoint is enabled. \
            With --textfile DIR they are written to DIR/joule.prom atomically (a temporary file in \
            DIR, synced and renamed), for node_exporter --collector.textfile.directory=DIR; run it \
            from a timer. Without --textfile they are printed. Exit status: 0 when written, 1 when \
            no daemon runs or the file cannot be written, 2 for bad arguments or a DIR that is not \
            a directory.
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Write DIR/joule.prom instead of printing.", valueName: "dir"))
    var textfile: String?

    func validate() throws {
        if let textfile, textfile.isEmpty { throw ValidationError("--textfile needs a directory") }
    }

    func run() async throws {
        if let textfile { try UserPath.directory(textfile, option: "--textfile", command: "export") }
        let text: String = try await DaemonClient.withDaemonOrLocal(environment: CurrentProcess.environment()) { daemon in
            do {
                return try await daemon.metrics()
            } catch {
                throw JouleExit.system("joule daemon: \(error)", command: "export")
            }
        } local: {
            throw JouleExit.system("no joule daemon on the session or system bus (org.joule.Energy1): nothing to export", command: "export")
        }
        guard let textfile else {
            _ = Console.write(text, to: .standardOutput)
            return
        }
        do {
            try MetricsTextfile.write(text, directory: textfile)
        } catch {
            throw JouleExit.system("\(error)", command: "export")
        }
    }
}
