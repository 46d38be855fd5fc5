import ArgumentParser
import JouleHardware
import JouleEnergy
import JouleClient

/// `joule lowpower on|off|auto`: through joule daemon's SetLowPowerMode when it runs, else
/// stores the Low Power Mode override; without an argument, prints the mode in force.
struct LowPowerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lowpower",
        abstract: "Force Low Power Mode on or off, or let the battery decide (auto).",
        discussion: """
            When joule daemon owns org.joule.Energy1 on the session or system bus, the choice \
            goes to it (SetLowPowerMode; on the system bus polkit decides who may, and a refusal \
            exits 1), and without an argument the daemon's mode is printed: on or off when it was \
            set by hand (LowPowerModeSource manual), else auto. \
            Without the daemon, the choice is kept in $JOULE_STATE_DIR/lowpower (default \
            $XDG_STATE_HOME/joule, else ~/.local/state/joule; /var/lib/joule as root). Missing or \
            unreadable means auto.
            """)

    @Argument(help: ArgumentHelp("on, off or auto; omit to show the current choice.", valueName: "mode"))
    var mode: String?

    func validate() throws {
        if let mode, LowPowerOverride(rawValue: mode) == nil {
            throw ValidationError("mode must be on, off or auto, not '\(mode)'")
        }
    }

    /// The override store for this user, or nil when no state directory can be formed.
    static func store() -> LowPowerOverrideStore? { LowPowerOverrideStore.forCurrentUser() }

    func run() async throws {
        let value = mode.flatMap(LowPowerOverride.init(rawValue:))
        try await DaemonClient.withDaemonOrLocal(environment: CurrentProcess.environment()) { daemon in
            // A daemon that refuses is not overruled by storing the choice here.
            try await Self.throughDaemon(daemon, value)
            return ()
        } local: {
            try Self.keep(value)
        }
    }

    /// Without the daemon: prints the stored choice, or stores `value`.
    private static func keep(_ value: LowPowerOverride?) throws {
        guard let store = store() else { throw JouleExit.system("no state directory: set JOULE_STATE_DIR or HOME") }
        guard let value else {
            Console.out(store.load().rawValue)
            return
        }
        do {
            try store.save(value)
        } catch {
            throw JouleExit.system("cannot store the Low Power Mode override: \(error)")
        }
        Console.out("Low Power Mode: \(value.rawValue) (saved to \(store.path))")
        Console.error(notEnacted)
    }

    /// Without the daemon a choice is only kept: nothing holds power-saver or writes a knob.
    static let notEnacted = """
        joule: joule daemon is not running, so nothing is enacted: the choice only applies to joule \
        status, watch and enforce. Start the service to enact it: sudo systemctl start joule \
        (or joule daemon --session for this user).
        """

    private static func throughDaemon(_ daemon: DaemonClient, _ value: LowPowerOverride?) async throws {
        do throws(BusError) {
            guard let value else {
                Console.out(try await daemon.lowPowerOverride().rawValue)
                return
            }
            try await daemon.setLowPowerMode(value)
            Console.out("Low Power Mode: \(value.rawValue) (set through joule daemon)")
        } catch {
            if error.remoteName == "org.freedesktop.DBus.Error.AccessDenied", case .remote(_, _, _, let message) = error {
                throw JouleExit.system("not authorised to set Low Power Mode: \(message)")
            }
            throw JouleExit.system("joule daemon: \(error)")
        }
    }
}
