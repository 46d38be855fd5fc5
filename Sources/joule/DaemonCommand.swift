import ArgumentParser
import JouleHardware
import JouleEnergy
import JouleDaemon
import JouleHTTP
import JouleMetrics

/// `joule daemon [--system | --session] [--root DIR] [--config FILE] [--restore]`.
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Own Low Power Mode and the thermal state for the machine and publish them on D-Bus as org.joule.Energy1.",
        discussion: """
            Runs the energy engines once for every client, enacts Low Power Mode (a power-saver \
            hold on power-profiles-daemon when it runs, otherwise joule's own CPU knobs, journaled \
            in the runtime directory and restored when Low Power Mode ends, on SIGTERM/SIGINT and \
            after a crash), and answers SetLowPowerMode for callers polkit allows \
            (org.joule.Energy1.set-low-power-mode; root only without polkit). With \
            battery.chargeLimit in the config it keeps the battery charge limit (at start, after \
            every resume, and when a battery reads back other thresholds) and answers \
            SetChargeLimit and ChargeFullOnce (org.joule.Energy1.set-charge-limit). SIGHUP reloads the \
            config; a bad one is logged and the old one kept. With metrics: {enabled: true} in \
            the config it serves Prometheus's GET /metrics (127.0.0.1:9747 unless metrics.listen \
            says otherwise; see joule export). Logs go to stderr. Under systemd \
            (Type=notify) it sends READY=1, STATUS= and watchdog pings. Exit status: 0 after a \
            clean stop, 1 when the bus, the name (already owned) or the devices are unavailable, \
            2 for bad arguments or a bad config (FILE:LINE:COLUMN: KEY: message).
            """)

    @Flag(exclusivity: .exclusive, help: "Which bus to serve on (default: --system).")
    var bus: JouleDaemon.BusKind = .system

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read devices and knobs from a fixture tree.", valueName: "dir"))
    var root: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "The YAML config (default /etc/joule/joule.yaml, or $XDG_CONFIG_HOME/joule/joule.yaml with --session).",
        valueName: "file"))
    var config: String?

    @Flag(name: .long, help: "Restore the knobs a previous run left written (from the journal), then exit (for ExecStopPost).")
    var restore = false

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        if let config, config.isEmpty { throw ValidationError("--config needs a file") }
    }

    func run() async throws {
        let environment = CurrentProcess.environment()
        let knobRoot = root.map { FileRoot($0) } ?? .live
        // Checked first, --restore included: a missing tree restores nothing and says so.
        let devices = try DeviceRoot(root)
        if restore {
            do {
                for outcome in try KnobActuator.restoreFromJournal(root: knobRoot).outcomes {
                    Console.error("joule daemon: \(outcome.knob) \(outcome.path): \(outcome.state)")
                }
            } catch {
                Console.error("joule daemon: \(error)")
                throw ExitCode(1)
            }
            return
        }
        guard let configPath = config ?? DaemonConfiguration.defaultPath(session: bus == .session, environment: environment) else {
            Console.error("joule daemon: no config path: set XDG_CONFIG_HOME or HOME, or pass --config")
            throw ExitCode(2)
        }
        var options = JouleDaemon.Options(
            bus: bus, configPath: configPath, source: devices.source, procRoot: devices.procRoot, knobRoot: knobRoot,
            stateDirectory: StateDirectory.current(), runtimeDirectory: RuntimeDirectory.current(), environment: environment,
            uid: CurrentProcess.effectiveUserID, transferTransport: HTTPTransferTransport(), metricsExporter: PrometheusExporter())
        options.configRequired = config != nil
        do {
            let daemon = try JouleDaemon(options: options) { Console.error("joule daemon: \($0)") }
            try await daemon.run()
        } catch {
            Console.error("joule daemon: \(error)")
            throw ExitCode(error.exitCode)
        }
    }
}

extension JouleDaemon.BusKind: EnumerableFlag {
    package static func name(for value: Self) -> NameSpecification { .customLong(value.rawValue) }

    package static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .system: "Serve on the system bus, for the machine (the default)."
        case .session: "Serve on the session bus, for one user."
        }
    }
}
