import ArgumentParser
import JouleHardware

/// The one exit-code rule (README, "Exit status"), for every command:
/// - 0: success;
/// - 1: the system failed: hardware, files Joule reads for itself, the daemon, the network;
/// - 2: the user's input is wrong: options, and the contents or kind of files the user named
///   (config, policy, region and capture files, `--root`, `--reports`);
/// - any other code is a command's own, listed in the README's table (`transfer wait`'s 3).
/// Each failure prints one line, `joule: what and where`, to stderr before the code is thrown.
enum JouleExit {
    /// The system failed.
    static let systemFailure = ExitCode(1)
    /// The user's input is wrong.
    static let badInput = ExitCode(2)

    /// Prints `joule: message` (`joule COMMAND: message`) and returns exit 1, to throw.
    static func system(_ message: String, command: String? = nil) -> ExitCode {
        Console.error("\(prefix(command))\(message)")
        return systemFailure
    }

    /// Prints `joule: message` (`joule COMMAND: message`) and returns exit 2, to throw.
    static func input(_ message: String, command: String? = nil) -> ExitCode {
        Console.error("\(prefix(command))\(message)")
        return badInput
    }

    private static func prefix(_ command: String?) -> String { command.map { "joule \($0): " } ?? "joule: " }
}
