import ArgumentParser
import JouleWire
import JouleHardware
import JouleEnergy
import JouleClient

/// `joule battery`, `joule battery limit [START-]END | off`, `joule battery full-once`: the
/// charge limit (issue 36), through joule daemon when it runs.
struct BatteryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "battery",
        abstract: "Battery care: show and set the charge limit, or charge fully once.",
        discussion: """
            joule daemon keeps the limit (config battery.chargeLimit, or joule battery limit): \
            it applies it at start, after every resume and whenever a battery reads back other \
            thresholds (an EC reset), and leaves it set when it stops.
            """,
        subcommands: [BatteryShow.self, BatteryLimit.self, BatteryFullOnce.self],
        defaultSubcommand: BatteryShow.self)

    /// The system batteries' names under `root` (nil: the live system).
    static func batteries(root: String?) throws -> (names: [String], supplies: PowerSupplies, fileRoot: FileRoot) {
        let devices = try DeviceRoot(root)
        let supplies: PowerSupplies
        do {
            supplies = try PowerSupplyReader(source: devices.source).read()
        } catch {
            throw JouleExit.system("cannot read the power supplies: \(error)")
        }
        return (supplies.batteries.filter { !$0.isUPS }.map(\.name), supplies, root.map(FileRoot.init) ?? .live)
    }

    /// A refusal from the daemon, worded for the user (always exit 1).
    static func daemonFailure(_ error: BusError, doing what: String) -> ExitCode {
        if error.remoteName == "org.freedesktop.DBus.Error.AccessDenied", case .remote(_, _, _, let message) = error {
            return JouleExit.system("not authorised to \(what): \(message)")
        }
        if case .remote(_, _, _, let message) = error { return JouleExit.system("joule daemon: \(message)") }
        return JouleExit.system("joule daemon: \(error)")
    }
}

/// `joule battery [--json] [--root DIR]`.
struct BatteryShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show each battery's charge limit: what joule daemon holds, what the firmware reads, and what it supports.",
        discussion: """
            Per system battery: the thresholds and charge_behaviour as they read now, who holds \
            the limit (firmware, emulated: joule daemon switches charge_behaviour, or none), \
            and what the battery supports; and the limit joule daemon keeps (with --json, \
            "daemon": {start, end, source, holds, fullOnce, error, optimizedCharging, optimized, holdUntil}, null without the daemon). \
            With --root, a fixture tree is read and the daemon is not asked.
            """)

    @Flag(help: "Print JSON.")
    var json = false

    @Option(help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
    }

    func run() async throws {
        let environment = CurrentProcess.environment()
        let (report, setting): (PowerSupplies, ChargeLimitSetting??) = try await DaemonClient.withDaemonOrLocal(
            environment: environment, askingDaemon: root == nil
        ) { daemon -> (PowerSupplies, ChargeLimitSetting??)? in
            do throws(BusError) {
                let report = try await daemon.report()
                let held: ChargeLimitSetting? = try await daemon.chargeLimit()
                return (report.supplies, .some(held))
            } catch {
                Console.error("joule: joule daemon: \(error); reading the batteries directly")
                return nil
            }
        } local: {
            (try BatteryCommand.batteries(root: root).supplies, ChargeLimitSetting??.none)
        }
        let batteries = report.batteries.filter { !$0.isUPS }
        Console.out(json ? Self.json(batteries, setting) : Self.text(batteries, setting))
    }

    /// `setting`: nil without the daemon, .some(nil) when it holds no limit.
    static func json(_ batteries: [Battery], _ setting: ChargeLimitSetting??) -> String {
        var daemon = JSONValue.null
        if case .some(let held) = setting {
            if let held {
                daemon = .object([
                    "start": .from(held.limit.start), "end": .int(held.limit.end), "source": .string(held.source.rawValue),
                    "holds": .bool(held.holds), "fullOnce": .bool(held.fullOnce), "error": .from(held.error),
                    "optimizedCharging": .bool(held.optimizedCharging), "optimized": .from(held.optimized),
                    "holdUntil": .from(held.holdUntil),
                ])
            } else {
                daemon = .object([
                    "start": .null, "end": .null, "source": .string("none"), "holds": .bool(false), "fullOnce": .bool(false), "error": .null,
                    "optimizedCharging": .bool(false), "optimized": .null, "holdUntil": .null,
                ])
            }
        }
        let list: [JSONValue] = batteries.map { battery in
            .object([
                "name": .string(battery.name), "percentage": .from(battery.percentage, places: 2),
                "state": .string(battery.state.rawValue), "chargeLimit": .object(StatusReport.json(chargeLimit: battery.chargeLimit)),
            ])
        }
        return JSONValue.object(["daemon": daemon, "batteries": .array(list)]).serialized
    }

    static func text(_ batteries: [Battery], _ setting: ChargeLimitSetting??) -> String {
        var lines: [String] = []
        switch setting {
        case .none:
            lines.append("joule daemon: not running (a limit set now is not applied again after resume or an EC reset)")
        case .some(.none):
            lines.append("joule daemon: keeps no charge limit (charging left alone)")
        case .some(.some(let held)):
            var line = "joule daemon: charge limit \(held.limit), \(held.source.rawValue), \(held.holds ? "holds" : "does not hold")"
            if held.fullOnce { line += "; charging to 100 % once, until the charger is unplugged" }
            lines.append(line)
            if held.optimizedCharging {
                lines.append("optimized charging: " + (held.optimized ?? "no decision yet (decided at the next reading on the charger)"))
            }
            if let error = held.error { lines += error.split(separator: "\n").map { "  \($0)" } }
        }
        if batteries.isEmpty { lines.append("no system battery") }
        for battery in batteries {
            let limit = battery.chargeLimit
            let reads = (limit.start.map { "\($0)-" } ?? "") + (limit.end.map { "\($0)" } ?? "?")
            let thresholds = limit.start == nil && limit.end == nil ? "no thresholds" : "thresholds \(reads)"
            var line = "\(battery.name): \(thresholds), \(limit.source.rawValue)"
            if let behaviour = limit.behaviour { line += ", charge_behaviour \(behaviour)" }
            line += "; supports \(limit.supported.isEmpty ? "nothing" : limit.supported.joined(separator: ", "))"
            if let percentage = battery.percentage { line += "; at \(Int(percentage.rounded())) %" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// `joule battery limit [START-]END | off [--root DIR]`.
struct BatteryLimit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit",
        abstract: "Set the charge limit: END, START-END (percentages) or off.",
        discussion: """
            Through joule daemon when it runs (SetChargeLimit; on the system bus polkit action \
            org.joule.Energy1.set-charge-limit decides who may, and a refusal exits 1): it keeps \
            the limit across resumes and EC resets. Without the daemon (or with --root, a \
            writable fixture tree) the limit is written once to each battery's \
            charge_control_*_threshold (root is needed on a real machine) and nothing applies \
            it again. Exit status: 2 for a bad limit (nothing is written), 1 when a battery \
            refuses it, does not read it back, or (without the daemon) would need joule daemon \
            to emulate it with charge_behaviour.
            """)

    @Argument(help: ArgumentHelp("END, START-END or off, e.g. 80 or 75-80.", valueName: "limit"))
    var limit: String

    @Option(help: ArgumentHelp("Write to a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        do throws(ChargeLimitError) {
            _ = try ChargeLimitRequest.parse(limit)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let request = try ChargeLimitRequest.parse(limit)
        try await DaemonClient.withDaemonOrLocal(environment: CurrentProcess.environment(), askingDaemon: root == nil) { daemon in
            do throws(BusError) {
                try await daemon.setChargeLimit(request)
            } catch {
                throw BatteryCommand.daemonFailure(error, doing: "change the charge limit")
            }
            Console.out("charge limit \(request) (kept by joule daemon)")
            return ()
        } local: {
            try direct(request)
        }
    }

    private func direct(_ request: ChargeLimitRequest) throws {
        let found = try BatteryCommand.batteries(root: root)
        guard !found.names.isEmpty else { throw JouleExit.system("no system battery to limit") }
        var failed = false
        for result in DirectChargeLimit.apply(request, root: found.fileRoot, batteries: found.names) {
            switch result.outcome {
            case .success(let outcome):
                let wrote = outcome.writes.isEmpty ? "already set" : "wrote " + outcome.writes.joined(separator: ", ")
                Console.out("\(result.battery): charge limit \(request) (\(outcome.source.rawValue)): \(wrote)")
                for mismatch in outcome.mismatches { Console.error("joule: \(result.battery): does not hold: \(mismatch)") }
                if outcome.source == .emulated {
                    Console.error("joule: \(result.battery): this battery's limit needs joule daemon to switch charge_behaviour; without it nothing holds the limit")
                }
                if !outcome.holds || outcome.source == .emulated { failed = true }
            case .failure(let error):
                Console.error("joule: \(result.battery): \(error)")
                failed = true
            }
        }
        Console.error("joule: joule daemon is not running: the limit is not applied again after a resume or an EC reset (start the service to keep it)")
        if failed { throw ExitCode(1) }
    }
}

/// `joule battery full-once`.
struct BatteryFullOnce: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "full-once",
        abstract: "Charge to 100 % once; the limit returns when the charger is unplugged.",
        discussion: """
            Needs joule daemon (ChargeFullOnce, polkit action org.joule.Energy1.set-charge-limit), \
            which lifts the limit and puts it back at the next unplug; without the daemon it exits 1.
            """)

    func run() async throws {
        try await DaemonClient.withDaemonOrLocal(environment: CurrentProcess.environment()) { daemon in
            do throws(BusError) {
                try await daemon.chargeFullOnce()
            } catch {
                throw BatteryCommand.daemonFailure(error, doing: "charge fully once")
            }
            Console.out("charging to 100 % once; the charge limit returns when the charger is unplugged")
            return ()
        } local: {
            throw JouleExit.system("full-once needs joule daemon, which puts the limit back when the charger is unplugged; it is not running")
        }
    }
}
