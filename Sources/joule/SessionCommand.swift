import ArgumentParser
import JouleWorkloads
import JouleHardware
import JouleEnergy
import JouleSession

/// `joule session [--config FILE] [--root DIR]`: the per-user agent.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "The per-user agent: Low Power Mode in the desktop session, and notifications.",
        discussion: """
            Follows org.joule.Energy1 (the session bus's daemon, else the system bus's). While Low \
            Power Mode is on it turns GNOME's animations off (gsettings \
            org.gnome.desktop.interface enable-animations), KDE's AnimationDurationFactor to 0 \
            where KDE is, and with session.lowPowerBrightnessPercent caps the backlight through \
            logind; each original is journalled in the state directory (session-journal.json) \
            first and restored when Low Power Mode ends, on SIGTERM/SIGINT, and at the next start \
            after a crash; a value changed meanwhile is left alone. It notifies through \
            org.freedesktop.Notifications (session.notifications switches each kind). Logs go to \
            stderr. Exit status: 0 after a clean stop, 1 without a session bus or state \
            directory, 2 for bad arguments or a bad config (FILE:LINE:COLUMN: KEY: message).
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "The YAML config with a session: key (default $XDG_CONFIG_HOME/joule/session.yaml; absent: the defaults).",
        valueName: "file"))
    var config: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read /sys/class/backlight under a fixture tree.", valueName: "dir"))
    var root: String?

    func validate() throws {
        if let config, config.isEmpty { throw ValidationError("--config needs a file") }
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
    }

    func run() async throws {
        let environment = CurrentProcess.environment()
        let settings = try readSettings(environment: environment)
        guard let state = StateDirectory.resolve(environment: environment, isRoot: false) else {
            throw JouleExit.system(StateDirectory.missingMessage, command: "session")
        }
        let signals = TerminationSignals.stream()
        do {
            try await SessionAgent.run(
                settings: settings, environment: environment, stateDirectory: state, root: root ?? "/", until: signals,
                log: { Console.error("joule \($0)") })
        } catch {
            throw JouleExit.system(error.description, command: "session")
        }
    }

    private func readSettings(environment: [String: String]) throws -> SessionSettings {
        let fallback = (environment["XDG_CONFIG_HOME"] ?? environment["HOME"].map { $0 + "/.config" }).map { $0 + "/joule/session.yaml" }
        guard let path = config ?? fallback else { return SessionSettings() }
        // The default file may be absent; a named one must exist.
        if config == nil, FileSystem.kind(of: path) == nil { return SessionSettings() }
        do {
            return try SessionSettings.parse(yaml: try YAMLReader.read(path: path), file: path)
        } catch {
            throw JouleExit.input(error.description, command: "session")
        }
    }
}
