import ArgumentParser
import JouleHardware

/// The `joule` command: parses arguments, calls the policy layer, prints.
struct Joule: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "joule",
        abstract: "Apple-style energy efficiency for Linux: power, thermal, CPU, beacons, location and deferred transfers.",
        version: JouleVersion.current,
        subcommands: [
            StatusCommand.self, WatchCommand.self, LowPowerCommand.self, Beacons.self,
            CPUMonitorCommand.self, ReportsCommand.self, EnforceCommand.self, DevicesCommand.self, DaemonCommand.self,
            TransferCommand.self, RunCommand.self, AppCommand.self, TopCommand.self, HistoryCommand.self,
            ExportCommand.self, LocationCommand.self, BatteryCommand.self, SessionCommand.self,
        ]
    )
}

/// Entry point that maps argument errors to exit status 2 (as the CLI contract says),
/// instead of ArgumentParser's default of 64.
@main
enum JouleMain {
    /// Synchronous, so Joule's own executor is in place before the first task exists (see
    /// PoolExecutor: libdispatch's would wake the process every second); the main thread then
    /// becomes one of its workers.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            // Printed here: ArgumentParser's own path renders the whole help tree to find it.
            Console.out(JouleVersion.current)
            return
        }
        runOnPoolExecutor {
            // Detached: main is the main actor's, and the main actor is not served.
            Task.detached {
                await run(arguments)
                Joule.exit()
            }
        }
    }

    static func run(_ arguments: [String]) async {
        do {
            if arguments.first == "status", let request = StatusRequest(words: arguments.dropFirst()) {
                try await request.run()
                return
            }
            var command = try parse(arguments)
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

    /// A subcommand pays only for itself: ArgumentParser's root parse reflects every command's
    /// arguments (about 4 ms of a 16 ms `status`), so the named subcommand is parsed alone.
    /// Anything that parse refuses (help, completion scripts, errors) is parsed again from
    /// the root, so messages and help keep their `joule …` wording.
    static func parse(_ arguments: [String]) throws -> ParsableCommand {
        if let name = arguments.first, !name.hasPrefix("-"),
            let type = Joule.configuration.subcommands.first(where: { $0.configuration.commandName == name }),
            let command = try? type.parseAsRoot(Array(arguments.dropFirst()))
        {
            return command
        }
        return try Joule.parseAsRoot(arguments)
    }
}
