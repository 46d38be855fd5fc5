import JouleWire
import JouleHardware
import JouleEnergy
import JouleHistory
import JouleWorkloads
import JouleTransferQueue

/// `joule daemon`: one process that owns Low Power Mode and the thermal state for the machine
/// (or, with `--session`, for one user) and publishes them on D-Bus as `org.joule.Energy1`.
///
/// It runs the energy engines once, enacts Low Power Mode (a power-saver hold on
/// power-profiles-daemon, or joule's own knobs), and answers `SetLowPowerMode` for callers
/// polkit (or the session) allows. SIGHUP reloads the config (a bad one is logged and the old
/// one kept); SIGTERM and SIGINT release the hold, restore every knob and exit.
package actor JouleDaemon {
    package enum BusKind: String, Sendable, CaseIterable {
        case system, session
    }

    package struct Options: Sendable {
        package var bus: BusKind
        /// The config file; a missing file means defaults, unless `configRequired`.
        package var configPath: String
        /// The user named the file (`--config`): missing is then an error, at start and on
        /// SIGHUP, never a silent fall back to defaults.
        package var configRequired = false
        /// Devices: libudev live, or a fixture tree.
        package var source: any DeviceSource
        package var procRoot: String
        /// Where the knobs are read and written (a fixture tree in tests).
        package var knobRoot: FileRoot
        /// Holds the manual Low Power Mode choice across restarts.
        package var stateDirectory: StateDirectory?
        /// Holds the knob journal (`/run/joule`, or `$XDG_RUNTIME_DIR/joule`).
        package var runtimeDirectory: RuntimeDirectory?
        /// For the bus addresses (`DBUS_SYSTEM_BUS_ADDRESS`, `DBUS_SESSION_BUS_ADDRESS`).
        package var environment: [String: String]
        /// This process's uid: with `--session`, the user who may call `SetLowPowerMode`.
        package var uid: UInt32
        /// Moves deferred transfers' bytes (JouleHTTP); nil: no `org.joule.Transfers1`.
        package var transferTransport: (any TransferTransport)?
        /// Renders and serves the metrics (JouleMetrics); nil: no `/metrics`, and `GetMetrics` fails.
        package var metricsExporter: (any MetricsExporter)?
        /// The host's energy for the history, `/metrics` and `joule export`; nil: a
        /// `DaemonEnergy` over `source`, `knobRoot` and `procRoot` (`JouleDaemon.energy`).
        package var energySnapshots: (any EnergySnapshotSource)?

        package init(
            bus: BusKind, configPath: String, source: any DeviceSource, procRoot: String, knobRoot: FileRoot,
            stateDirectory: StateDirectory?, runtimeDirectory: RuntimeDirectory?, environment: [String: String], uid: UInt32,
            transferTransport: (any TransferTransport)? = nil, metricsExporter: (any MetricsExporter)? = nil,
            energySnapshots: (any EnergySnapshotSource)? = nil
        ) {
            self.transferTransport = transferTransport
            self.metricsExporter = metricsExporter
            self.energySnapshots = energySnapshots
            self.bus = bus
            self.configPath = configPath
            self.source = source
            self.procRoot = procRoot
            self.knobRoot = knobRoot
            self.stateDirectory = stateDirectory
            self.runtimeDirectory = runtimeDirectory
            self.environment = environment
            self.uid = uid
        }
    }

    package enum Failure: Error, Sendable, CustomStringConvertible {
        case configuration(ConfigurationError)
        case bus(String)
        case devices(HardwareError)
        case setup(String)
        /// The bus went away while serving (the knobs are restored by then).
        case busLost(BusError)

        package var description: String {
            switch self {
            case .configuration(let error): "\(error)"
            case .bus(let message), .setup(let message): message
            case .devices(let error): "cannot read devices: \(error)"
            case .busLost(let error): "lost the bus: \(error)"
            }
        }

        /// 2 for a bad config (as for bad arguments), 1 for everything else.
        package var exitCode: Int32 {
            if case .configuration = self { return 2 }
            return 1
        }
    }

    private let options: Options
    private let log: @Sendable (String) -> Void
    /// Measured on demand: whoever records or exports energy calls `snapshot()`.
    package nonisolated let energy: any EnergySnapshotSource
    private let notifier = ServiceNotifier()
    private var configuration: DaemonConfiguration

    private var bus: BusConnection?
    /// The system bus, where power-profiles-daemon and polkit live (the same connection
    /// as `bus` with `--system`).
    private var systemBus: BusConnection?
    private var engine: EnergyMonitor?
    private var service: EnergyService?
    private var actuation: LowPowerActuation?
    private var profiles: PowerProfilesClient?
    private var workloads: DaemonWorkloads?
    private var transfers: DaemonTransfers?
    private var location: DaemonLocation?
    private var apps: DaemonApps?
    private var metrics: DaemonMetrics?
    private var history: DaemonHistory?
    /// The battery charge limit (issue 36), kept on every battery under `knobRoot`.
    private var chargeLimit: DaemonChargeLimit?
    /// The account of every sleep (issue 36), through logind on the system bus.
    private var sleep: DaemonSleep?
    /// The config's `apps:`: desktop apps supervised by their scopes (issue 35).
    private var desktopApps: DaemonDesktopApps?
    private let follower = DaemonEventFollower()

    package init(options: Options, log: @escaping @Sendable (String) -> Void) throws(Failure) {
        self.options = options
        self.log = log
        energy = options.energySnapshots
            ?? DaemonEnergy(source: options.source, root: options.knobRoot, procRoot: options.procRoot, log: log)
        do {
            configuration = try DaemonConfiguration.load(path: options.configPath, required: options.configRequired)
        } catch {
            throw .configuration(error)
        }
    }

    /// Serves until SIGTERM or SIGINT; returns after the hold is released and the knobs are
    /// restored. Throws, before anything is changed on the machine, when the bus, the name,
    /// the devices or the directories are unavailable.
    package func run() async throws(Failure) {
        let signals: AsyncStream<TerminationSignal>
        let listener: SignalListener
        do {
            (signals, listener) = try SignalListener.stream([.terminate, .interrupt, .hangup])
        } catch {
            throw .setup("cannot listen for signals: \(error)")
        }
        defer { listener.cancel() }

        let bus = try await connect()
        self.bus = bus
        let engine: EnergyMonitor
        do {
            engine = try EnergyMonitor(
                source: options.source, overrideStore: options.stateDirectory.map { LowPowerOverrideStore(directory: $0.path) },
                clock: SystemClock(), configuration: engineConfiguration(), warn: log)
        } catch {
            throw .setup("cannot start the energy engine: \(error)")
        }
        self.engine = engine
        do {
            try await engine.start()
        } catch {
            await bus.close()
            throw .devices(error)
        }
        guard let runtimeDirectory = options.runtimeDirectory else {
            await bus.close()
            throw .setup(RuntimeDirectory.missingMessage)
        }
        let actuation = LowPowerActuation(
            actuators: configuration.actuators, knobs: configuration.knobs,
            actuator: KnobActuator(root: options.knobRoot, runtimeDirectory: runtimeDirectory), log: log)
        self.actuation = actuation

        let authorizer = authorizer(bus: bus)
        let chargeAuthorizer = self.authorizer(bus: bus, action: EnergyBus.setChargeLimitAction, what: "change the battery charge limit")
        let chargeLimit = DaemonChargeLimit(
            limit: configuration.chargeLimit, optimizedCharging: configuration.optimizedCharging, root: options.knobRoot,
            history: { [weak self] since in await self?.historySamples(since: since) ?? [] }, log: log)
        self.chargeLimit = chargeLimit
        let transfers = try await openTransfers(bus: bus, engine: engine)
        let location: DaemonLocation
        do {
            location = try await DaemonLocation.open(
                bus: bus, settings: configuration.location, regions: configuration.regions,
                authorizer: self.authorizer(bus: bus, action: LocationBus.useAction, what: "use the location service"), log: log)
        } catch {
            await bus.close()
            throw .bus("cannot export \(LocationBus.objectPath): \(error)")
        }
        self.location = location
        await location.follow(await state())
        let history = DaemonHistory.open(
            stateDirectory: options.stateDirectory, engine: engine, energy: energy, log: log)
        self.history = history
        let sleep = DaemonSleep(
            bus: systemBus, root: options.knobRoot, battery: { [weak engine] in await engine?.readSuppliesNow()?.composite },
            accounted: { [weak self] record in await self?.accounted(record) }, log: log)
        self.sleep = sleep
        let service: EnergyService
        do {
            service = try await EnergyService.export(
                on: bus, initial: await state(),
                handlers: EnergyService.Handlers(
                    setLowPowerMode: { [weak self] mode, sender throws(BusMethodError) in
                        guard let self else { throw .failed("joule daemon is stopping") }
                        try await authorizer.authorize(sender: sender)
                        try await self.setLowPowerMode(mode, from: sender)
                    },
                    status: { [weak self] in await self?.statusJSON() ?? "{}" },
                    metrics: { [weak self] () throws(BusMethodError) in try await self?.metricsText() ?? "" },
                    history: history?.handler(bus: bus),
                    setChargeLimit: { [weak self] limit, sender throws(BusMethodError) in
                        guard let self else { throw .failed("joule daemon is stopping") }
                        try await chargeAuthorizer.authorize(sender: sender)
                        try await self.setChargeLimit(limit, from: sender)
                    },
                    chargeFullOnce: { [weak self] sender throws(BusMethodError) in
                        guard let self else { throw .failed("joule daemon is stopping") }
                        try await chargeAuthorizer.authorize(sender: sender)
                        try await self.chargeFullOnce(from: sender)
                    }),
                log: log)
            let conditions = await state()
            let apps = try DaemonApps(
                bus: bus, systemBus: systemBus, runtime: runtimeDirectory,
                reports: options.stateDirectory.map { ReportStore(directory: $0.reports) }, log: log)
            try await apps.start(lowPowerMode: conditions.lowPowerMode, thermalState: conditions.thermalState)
            self.apps = apps
            desktopApps = DaemonDesktopApps(supervisor: apps.supervisor, rules: configuration.apps, procRoot: options.procRoot, log: log)
            // Only one daemon may own the knobs: the name is taken before any is touched.
            try await bus.requestName(EnergyBus.busName)
            if transfers != nil { try await bus.requestName(TransfersBus.busName) }
            try await bus.requestName(AppsBus.busName)
            try await bus.requestName(LocationBus.busName)
        } catch {
            await bus.close()
            throw .bus("\(error)")
        }
        self.service = service
        log("serving \(EnergyBus.busName) on the \(options.bus.rawValue) bus (\(bus.address)); config \(configuration.file ?? "defaults (no \(options.configPath))")")

        await actuation.recover()
        // The charge limit is applied before the first reading is observed, and after that
        // on every reading and every resume.
        await chargeLimit.apply(await engine.lastSupplies, reason: "start")
        await engine.setSuppliesObserver { [weak self] supplies in await self?.observe(supplies) }
        await publish()
        await followPowerProfiles()
        await actuation.set(await engine.lowPowerMode)
        let workloads = DaemonWorkloads(
            stateDirectory: options.stateDirectory, log: log,
            violated: { [weak self] report, path in await self?.service?.cpuMonitorViolation(report, path: path) })
        self.workloads = workloads
        await workloads.start(configuration, states: await states())
        self.transfers = transfers
        await history?.start()
        await desktopApps?.start()
        await sleep.takeLock()
        await transfers?.start(finished: { transfer in await history?.transferFinished(transfer) })
        await startMetrics(engine: engine, workloads: workloads, transfers: transfers)
        let ready = await statusLine()
        notifier.ready(status: ready)
        log("ready: \(ready)")

        let lost = await serve(engine: engine, signals: signals)

        notifier.stopping()
        await metrics?.stop()
        await transfers?.stop()
        await location.stop()
        await sleep.stop()
        await history?.stop()
        await desktopApps?.stop()
        await apps?.stop()
        await workloads.stop()
        await engine.setSuppliesObserver(nil)
        await chargeLimit.release(await engine.lastSupplies)
        await actuation.shutdown()
        if transfers != nil { try? await bus.releaseName(TransfersBus.busName) }
        try? await bus.releaseName(AppsBus.busName)
        try? await bus.releaseName(LocationBus.busName)
        try? await bus.releaseName(EnergyBus.busName)
        await bus.close()
        if let systemBus, systemBus !== bus { await systemBus.close() }
        if let lost {
            log("stopped after losing the bus; knobs restored")
            throw .busLost(lost)
        }
        log("stopped; knobs restored")
    }

    /// How serving ended: a signal, or a bus that went away.
    private enum Ending: Sendable {
        case signal(TerminationSignal)
        case busLost(BusError)
        /// A task that ended without deciding (cancelled, or its stream finished).
        case nothing
    }

    /// Runs the engine (which pings the watchdog), power-profiles-daemon's changes and the
    /// signals until SIGTERM or SIGINT (nil) or until a bus goes away (why); SIGHUP reloads.
    private func serve(engine: EnergyMonitor, signals: AsyncStream<TerminationSignal>) async -> BusError? {
        // The watchdog's ping comes from the engine's loop after its work, so a wedged read
        // (or a wedged handler: the loop awaits each event) lets systemd restart the unit; so
        // does a follower stuck for longer than WatchdogSec (twice the ping interval).
        if let interval = notifier.watchdogPingInterval {
            let notifier = self.notifier, follower = self.follower, log = self.log
            await engine.setHeartbeat(every: interval) {
                let stuck = follower.backlogAge
                guard stuck < interval * 2 else {
                    return log("watchdog: not pinging: workloads, transfers, apps and history have not taken an event for \(Int(stuck.inSeconds)) s")
                }
                notifier.watchdog()
            }
        }
        let follower = self.follower
        let following = Task { [weak self] in
            await follower.run { event in await self?.follow(event) }
        }
        let ending = await serveUntilDone(engine: engine, signals: signals)
        follower.finish()
        // What was handed over before the end is still recorded.
        await following.value
        return ending
    }

    /// `serve`'s tasks, until one of them decides how serving ends.
    private func serveUntilDone(engine: EnergyMonitor, signals: AsyncStream<TerminationSignal>) async -> BusError? {
        var buses = [bus].compactMap { $0 }
        if let systemBus, systemBus !== bus { buses.append(systemBus) }
        return await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                await engine.run { [weak self] event in await self?.handle(event) }
                return .nothing
            }
            if let sleeps = await sleeps() {
                group.addTask { [weak self] in
                    for await going in sleeps {
                        if going { await self?.sleep?.preparing() } else { await self?.resumed() }
                    }
                    return .nothing
                }
            }
            if let watch = await profileChanges() {
                group.addTask { [weak self] in
                    for await change in watch { await self?.profileChange(change) }
                    return .nothing
                }
            }
            group.addTask { [weak self] in
                for await signal in signals {
                    guard signal == .hangup else { return .signal(signal) }
                    await self?.reload()
                }
                return .nothing
            }
            // As UPower: without its bus the service cannot be reached, so it exits non-zero
            // and systemd (Restart=on-failure) starts it again once the bus is back.
            for bus in buses {
                group.addTask {
                    for await error in bus.lost() { return .busLost(error) }
                    return .nothing
                }
            }
            while let ending = await group.next() {
                switch ending {
                case .signal(let signal):
                    log("\(signal): releasing the power-saver hold, restoring knobs")
                    group.cancelAll()
                    return nil
                case .busLost(let error):
                    log("lost the bus (\(error)): restoring knobs and exiting")
                    group.cancelAll()
                    return error
                case .nothing:
                    continue
                }
            }
            return nil
        }
    }

    // MARK: Engine events

    /// What must not wait for the disk: the properties, the signals, the knobs. The rest
    /// follows in `follow`, in order, on the follower's task.
    private func handle(_ event: TimedEvent) async {
        guard let service, let actuation else { return }
        await publish()
        follower.submit(event)
        switch event.event {
        case .powerStateDidChange(let on, let reason):
            log("Low Power Mode \(on ? "on" : "off") (\(reason))")
            await service.powerStateDidChange(lowPowerMode: on, reason: reason)
            await actuation.set(on)
            await location?.follow(await state())
        case .thermalStateDidChange(let state, let previous, let cause):
            log("thermal state \(state) (was \(previous)\(cause.map { ", \($0)" } ?? ""))")
            await service.thermalStateDidChange(state: state, previous: previous, cause: cause)
            await location?.follow(await self.state())
        default:
            break
        }
        notifier.status(await statusLine())
    }

    /// Publishes the engine's state as the properties, after an event or an input that may have
    /// changed only why Low Power Mode is what it is (`auto` while the battery rule keeps it on
    /// sends no event, yet `LowPowerModeSource` must follow). A new source is logged once.
    private func publish() async {
        guard let service else { return }
        let new = await state()
        let old = service.current
        await service.update(new)
        if old.source != new.source {
            log("Low Power Mode source \(old.source.rawValue) → \(new.source.rawValue) (Low Power Mode \(new.lowPowerMode ? "on" : "off"))")
            notifier.status(await statusLine())
        }
    }

    /// An event's consequences that may wait on the disk: workloads, transfers and apps see
    /// the current state, the history records the event.
    private func follow(_ event: TimedEvent) async {
        await workloads?.update(await states())
        await transfers?.update(await powerReadings())
        let conditions = await state()
        await apps?.update(lowPowerMode: conditions.lowPowerMode, thermalState: conditions.thermalState)
        await history?.record(event)
    }

    private func setLowPowerMode(_ mode: LowPowerOverride, from sender: String) async throws(BusMethodError) {
        guard let engine else { throw .failed("joule daemon is not ready") }
        log("SetLowPowerMode(\(mode.rawValue)) from \(sender)")
        do {
            try await engine.setOverride(mode)
        } catch {
            await publish()
            throw .failed("cannot keep the Low Power Mode choice: \(error)")
        }
        await publish()
    }

    // MARK: Charge limit

    /// Each power reading: the charge limit checks what the batteries read back.
    private func observe(_ supplies: PowerSupplies) async {
        await chargeLimit?.observe(supplies)
        await publish()
    }

    /// logind's `PrepareForSleep(false)`: the sleep is accounted, and the firmware may have
    /// forgotten the thresholds.
    private func resumed() async {
        await sleep?.resumed()
        guard let chargeLimit, await chargeLimit.limit != nil else { return }
        log("resumed from sleep: applying the charge limit again")
        await chargeLimit.apply(await engine?.lastSupplies, reason: "resume")
        await publish()
    }

    private func setChargeLimit(_ limit: ChargeLimitRequest, from sender: String) async throws(BusMethodError) {
        guard let chargeLimit, let engine else { throw .failed("joule daemon is not ready") }
        log("SetChargeLimit(\(limit)) from \(sender)")
        let refusals = await chargeLimit.set(limit, supplies: await engine.lastSupplies)
        await publish()
        if !refusals.isEmpty { throw .failed(refusals.joined(separator: "; ")) }
    }

    private func chargeFullOnce(from sender: String) async throws(BusMethodError) {
        guard let chargeLimit, let engine else { throw .failed("joule daemon is not ready") }
        log("ChargeFullOnce() from \(sender)")
        guard await chargeLimit.chargeFullOnce(await engine.lastSupplies) else {
            throw .failed("no charge limit is set, so the battery already charges to 100 %")
        }
        await publish()
        let refusals = await chargeLimit.refusals
        if !refusals.isEmpty { throw .failed(refusals.joined(separator: "; ")) }
    }

    /// The history's samples from `since` to now, for optimized charging; none without a history.
    private func historySamples(since: Double) async -> [HistorySample] {
        do {
            return try await history?.timeline(since: since, until: WallClock.seconds(), visibleTo: nil).samples ?? []
        } catch {
            log("optimized charging: cannot read the history: \(error)")
            return []
        }
    }

    /// A sleep the account noted: into the history, and announced when it drained fast.
    private func accounted(_ record: SleepRecord) async {
        await history?.recordSleep(record)
        if record.isFlagged { await service?.sleepFlagged(record) }
    }

    /// logind's `PrepareForSleep` on the system bus (true: going to sleep, false: resumed);
    /// nil without one.
    private func sleeps() async -> AsyncStream<Bool>? {
        guard let systemBus else { return nil }
        do {
            let signals = try await systemBus.signals(matching:
                "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.login1.Manager',member='PrepareForSleep'")
            await sleep?.follow()
            return AsyncStream { continuation in
                let task = Task {
                    for await signal in signals {
                        if let going = signal.arguments.first?.boolValue { continuation.yield(going) }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        } catch {
            log("cannot follow logind's sleeps (no sleep account; the charge limit is applied again only on a read-back that differs): \(error)")
            return nil
        }
    }

    private func states() async -> EnforcementSession.States {
        EnforcementSession.States(lowPowerMode: await engine?.lowPowerMode ?? false, thermalState: await engine?.thermalState ?? .nominal)
    }

    private func powerReadings() async -> DaemonTransfers.PowerReadings {
        DaemonTransfers.PowerReadings(
            lineOnline: await engine?.lineOnline ?? false, batteryPercentage: await engine?.percentage,
            lowPowerMode: await engine?.lowPowerMode ?? false, thermalState: await engine?.thermalState ?? .nominal)
    }

    /// The transfer queue and its object, when there is a transport and a state directory.
    private func openTransfers(bus: BusConnection, engine: EnergyMonitor) async throws(Failure) -> DaemonTransfers? {
        guard let transport = options.transferTransport else { return nil }
        guard let stateDirectory = options.stateDirectory else {
            log("transfers off: no state directory for the queue")
            return nil
        }
        do {
            return try await DaemonTransfers(
                bus: bus, systemBus: systemBus, stateDirectory: stateDirectory, transport: transport,
                settings: configuration.transfers, power: await powerReadings(), root: options.knobRoot, log: log)
        } catch {
            await bus.close()
            throw error
        }
    }

    private func state() async -> EnergyBusState {
        var state = EnergyBusState()
        guard let engine else { return state }
        state.lowPowerMode = await engine.lowPowerMode
        state.source = await engine.lowPowerModeSource
        state.thermalState = await engine.thermalState
        state.onBattery = await engine.onBattery
        state.percentage = await engine.percentage ?? -1
        state.warningLevel = await engine.warningLevel
        if let chargeLimit { state.chargeLimit = await chargeLimit.busValue }
        return state
    }

    /// The `GetStatus` reply: the `status --json` object with the knobs' outcomes.
    private func statusJSON() async -> String {
        guard let engine else { return "{}" }
        var report = await engine.report()
        report.lowPowerActions = await actuation?.actions ?? []
        report.source = .daemon
        if let chargeLimit { report.supplies = await chargeLimit.annotate(report.supplies) }
        return JSONValue.object(report.json).serialized
    }

    /// What `systemctl status` shows.
    private func statusLine() async -> String {
        let state = await state()
        var line = "Low Power Mode \(state.lowPowerMode ? "on" : "off") (\(state.source.rawValue)), thermal \(state.thermalState)"
        if state.percentage >= 0 {
            line += ", battery \(Int(state.percentage.rounded())) %\(state.onBattery ? " discharging" : "")"
        }
        if let actuation {
            if let cookie = await actuation.holdCookie {
                line += ", holding power-saver (\(cookie))"
            } else {
                let applied = await actuation.actions.filter { $0.state == .applied }.count
                if applied > 0 { line += ", \(applied) knobs applied" }
            }
        }
        return line
    }

    // MARK: Metrics

    private func startMetrics(engine: EnergyMonitor, workloads: DaemonWorkloads, transfers: DaemonTransfers?) async {
        guard let exporter = options.metricsExporter else { return }
        let parts = DaemonMetrics.Parts(
            engine: engine, workloads: workloads, transfers: transfers, energy: energy,
            throttling: RaspberryPiThrottlingReader(root: options.knobRoot), sleep: sleep)
        let metrics = DaemonMetrics(exporter: exporter, parts: parts, log: log)
        self.metrics = metrics
        await metrics.apply(configuration.metrics)
    }

    private func metricsText() async throws(BusMethodError) -> String {
        guard options.metricsExporter != nil else { throw .failed("this joule daemon exports no metrics") }
        guard let metrics else { throw .failed("joule daemon is not ready") }
        return await metrics.exposition()
    }

    // MARK: Configuration

    private func engineConfiguration() -> EnergyMonitor.Configuration {
        var engine = EnergyMonitor.Configuration()
        engine.power = configuration.power
        engine.procRoot = options.procRoot
        return engine
    }

    private func reload() async {
        notifier.reloading()
        do {
            let fresh = try DaemonConfiguration.load(path: options.configPath, required: options.configRequired)
            let old = configuration
            configuration = fresh
            await engine?.setPowerConfiguration(fresh.power)
            // power-profiles-daemon becoming an actuator is found before the actuation is
            // reconfigured (Low Power Mode goes straight to a hold, no knob written between);
            // one that stops being one is forgotten after (the reconfigure released the hold).
            // Found by make test-system's scenario 6: a reload used to leave it as it was.
            let hadProfiles = old.actuators.contains(.powerProfilesDaemon), hasProfiles = fresh.actuators.contains(.powerProfilesDaemon)
            if hasProfiles, !hadProfiles { await followPowerProfiles() }
            await actuation?.reconfigure(actuators: fresh.actuators, knobs: fresh.knobs)
            if hadProfiles, !hasProfiles, profiles != nil {
                profiles = nil
                await actuation?.profilesChanged(nil)
                await engine?.setProfileRequest(false)
            }
            await workloads?.start(fresh, states: await states())
            if fresh.apps != old.apps { await desktopApps?.reload(fresh.apps) }
            await transfers?.reload(fresh.transfers)
            await metrics?.apply(fresh.metrics)
            if fresh.chargeLimit != old.chargeLimit || fresh.optimizedCharging != old.optimizedCharging {
                log("SIGHUP: charge limit \(fresh.chargeLimit.map { "\($0)" } ?? "none (charging left alone)"), optimized charging \(fresh.optimizedCharging ? "on" : "off")")
                await chargeLimit?.set(fresh.chargeLimit, optimizedCharging: fresh.optimizedCharging, supplies: await engine?.lastSupplies)
            }
            log("SIGHUP: reloaded \(options.configPath)")
        } catch {
            log("SIGHUP: keeping the old config: \(error)")
        }
        await publish()
        notifier.ready(status: await statusLine())
    }

    // MARK: Bus

    private func connect() async throws(Failure) -> BusConnection {
        switch options.bus {
        case .system:
            do {
                let bus = try await BusConnection.system(environment: options.environment)
                systemBus = bus
                return bus
            } catch {
                throw .bus("cannot connect to the system bus: \(error)")
            }
        case .session:
            let bus: BusConnection
            do {
                bus = try await BusConnection.session(environment: options.environment)
            } catch {
                throw .bus("no session bus (--session needs DBUS_SESSION_BUS_ADDRESS or $XDG_RUNTIME_DIR/bus): \(error)")
            }
            // power-profiles-daemon and polkit are system services, looked up there in both modes.
            do {
                systemBus = try await BusConnection.system(environment: options.environment)
            } catch {
                log("no system bus, so no power-profiles-daemon: \(error)")
            }
            return bus
        }
    }

    private func authorizer(
        bus: BusConnection, action: String = EnergyBus.setLowPowerModeAction, what: String = "set Low Power Mode"
    ) -> CallerAuthorizer {
        switch options.bus {
        case .system: CallerAuthorizer(mode: .system, bus: bus, action: action, what: what)
        case .session: CallerAuthorizer(mode: .session(uid: options.uid), bus: bus, action: action, what: what)
        }
    }


    // MARK: power-profiles-daemon

    /// Finds the service (when the config lets it act) and tells the actuation and engine
    /// what the user has chosen there.
    private func followPowerProfiles() async {
        guard configuration.actuators.contains(.powerProfilesDaemon), let systemBus else { return }
        profiles = await PowerProfilesClient.find(on: systemBus)
        await actuation?.profilesChanged(profiles)
        guard let profiles else { return }
        log("power-profiles-daemon found as \(profiles.busName): Low Power Mode holds power-saver there")
        if let active = try? await profiles.activeProfile(), let verdict = await actuation?.activeProfileChanged(active) {
            await apply(verdict)
        }
    }

    /// Followed whenever there is a system bus, so that a reload adding power-profiles-daemon
    /// to the actuators hears it from then on; `profileChange` ignores it while it is not one.
    private func profileChanges() async -> AsyncStream<PowerProfilesChange>? {
        guard let systemBus else { return nil }
        do {
            return try await PowerProfilesClient.changes(on: systemBus)
        } catch {
            log("cannot follow power-profiles-daemon: \(error)")
            return nil
        }
    }

    private func profileChange(_ change: PowerProfilesChange) async {
        guard let actuation, configuration.actuators.contains(.powerProfilesDaemon) else { return }
        switch change {
        case .activeProfile(let profile):
            await apply(await actuation.activeProfileChanged(profile))
        case .profileReleased(let cookie):
            let active = try? await profiles?.activeProfile()
            await apply(await actuation.profileReleased(cookie, activeProfile: active))
        case .ownerChanged(let name, let present):
            if present {
                // A new owner (or a restart) knows nothing of joule's hold: find it and hold again.
                if profiles?.busName == name { profiles = nil; await actuation.profilesChanged(nil) }
                await followPowerProfiles()
            } else if profiles?.busName == name {
                log("\(name) left the bus")
                profiles = nil
                await actuation.profilesChanged(nil)
                await engine?.setProfileRequest(false)
                await followPowerProfiles()
                if profiles == nil { log("no power-profiles service: joule's own knobs enact Low Power Mode") }
            }
        }
    }

    private func apply(_ verdict: LowPowerActuation.ProfileVerdict) async {
        guard let engine else { return }
        switch verdict {
        case .none:
            break
        case .manualChoice(let mode):
            do {
                try await engine.setOverride(mode)
            } catch {
                log("cannot keep the Low Power Mode choice: \(error)")
            }
        case .profileRequest(let on):
            // Choosing power-saver on the desktop also ends a manual "off".
            if on, await engine.lowPowerOverride == .off { try? await engine.setOverride(.auto) }
            await engine.setProfileRequest(on)
            // Leaving power-saver while the battery rule still wants Low Power Mode: the user
            // chose against it, and holding power-saver again would fight that choice.
            if !on, await engine.lowPowerMode {
                log("the user left power-saver while Low Power Mode was on: recorded as a manual choice")
                try? await engine.setOverride(.off)
            }
        }
        await publish()
    }
}
