import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule lowpower on|off|auto`: stores the Low Power Mode override; without an argument,
/// prints the stored override.
struct LowPowerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lowpower",
        abstract: "Force Low Power Mode on or off, or let the battery decide (auto).",
        discussion: """
            The choice is kept in $JOULE_STATE_DIR/lowpower (default $XDG_STATE_HOME/joule, \
            else ~/.local/state/joule; /var/lib/joule as root). Missing or unreadable means auto.
            """)

    @Argument(help: ArgumentHelp("on, off or auto; omit to show the stored choice.", valueName: "mode"))
    var mode: String?

    func validate() throws {
        if let mode, LowPowerOverride(rawValue: mode) == nil {
            throw ValidationError("mode must be on, off or auto, not '\(mode)'")
        }
    }

    /// The override store for this user, or nil when no state directory can be formed.
    static func store() -> LowPowerOverrideStore? { LowPowerOverrideStore.forCurrentUser() }

    func run() throws {
        guard let store = Self.store() else {
            Console.error("joule: no state directory: set JOULE_STATE_DIR or HOME")
            throw ExitCode(1)
        }
        guard let mode, let value = LowPowerOverride(rawValue: mode) else {
            Console.out(store.load().rawValue)
            return
        }
        do {
            try store.save(value)
        } catch {
            Console.error("joule: cannot store the Low Power Mode override: \(error)")
            throw ExitCode(1)
        }
        Console.out("Low Power Mode: \(value.rawValue) (saved to \(store.path))")
    }
}
