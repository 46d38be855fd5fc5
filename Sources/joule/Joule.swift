import ArgumentParser
import JouleHardware

/// The `joule` command: parses arguments, calls the policy layer, prints.
struct Joule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "joule",
        abstract: "Apple-style energy efficiency for Linux: power, thermal, CPU, beacons and deferred transfers.",
        version: JouleVersion.current,
        subcommands: [
            StatusCommand.self, WatchCommand.self, LowPowerCommand.self, Beacons.self,
            CPUMonitorCommand.self, ReportsCommand.self, EnforceCommand.self, DevicesCommand.self, DaemonCommand.self,
            TransferCommand.self, RunCommand.self, AppCommand.self, TopCommand.self, HistoryCommand.self,
            ExportCommand.self,
        ]
    )
}

/// Entry point that maps argument errors to exit status 2 (as the CLI contract says),
/// instead of ArgumentParser's default of 64.
@main
enum JouleMain {
    static func main() async {
        do {
            var command = try Joule.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Joule.exitCode(for: error)
            if code == .validationFailure {
                Console.error(Joule.fullMessage(for: error))
                Joule.exit(withError: ExitCode(2))
            }
            Joule.exit(withError: error)
        }
    }
}
