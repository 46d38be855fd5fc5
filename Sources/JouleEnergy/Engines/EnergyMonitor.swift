import JouleHardware

/// The live engines: reads power supplies and thermal inputs on an adaptive schedule (and at
/// once on a uevent), runs them through the power and thermal state machines, and emits
/// events. Hardware reads go through a `DeviceSource`, time through a `JouleClock`, so the same
/// loop runs live, on a fixture tree, and under a manual clock in tests.
public actor EnergyMonitor {
    public struct Configuration: Sendable {
        public var schedule = PollSchedule()
        public var power = PowerStateMachine.Configuration()
        /// Consecutive reads a thermal change must be seen on.
        public var thermalConfirmations = 2
        /// Where /proc lives for the snapshot's CPU figures.
        public var procRoot = "/"
        /// Listen for uevents when the source offers them.
        public var useDeviceEvents = true

        public init() {}
    }

    private let source: any DeviceSource
    private let overrideStore: LowPowerOverrideStore?
    private let clock: any JouleClock
    private var configuration: Configuration
    private let warn: @Sendable (String) -> Void

    private var power: PowerStateMachine
    private var thermal: ThermalStateMachine
    private var supplies: PowerSupplies?
    private var productName: String?
    private var powerPoller = DevicePoller(subsystem: "power_supply", volatile: PowerSupplyReader.volatileAttributes)
    private var thermalPoller = DevicePoller(subsystem: "thermal", volatile: ThermalReader.volatileAttributes)
    private var hwmonPoller = DevicePoller(subsystem: "hwmon", volatile: ThermalReader.volatileAttributes)
    private var nextPowerRead = -Double.infinity
    private var nextThermalRead = -Double.infinity
    /// The service watchdog's ping and its period: sent from this loop after a wakeup's work,
    /// never from a timer of its own, so a read that wedges the loop stops it.
    private var heartbeat: (every: Double, beat: @Sendable () -> Void)?
    private var nextHeartbeat = Double.infinity
    private var started = false
    private var thermalReadings = ThermalReadings(zones: [], coolingDevices: [])
    private var cpuSample: CPUStat?
    /// The override set through `setOverride` when there is no store to keep it in.
    private var heldOverride = LowPowerOverride.auto
    private var profileRequest = false
    /// Hears every power supply reading, changed or not (the daemon's charge limit checks
    /// what the batteries read back on each).
    private var suppliesObserver: (@Sendable (PowerSupplies) async -> Void)?
    /// Where the running loop's events go, so that inputs set from outside emit too.
    private var emitter: (@Sendable (TimedEvent) async -> Void)?
    /// The engine's own thread: its polls sleep there and run there, one wakeup each.
    private let loop: LoopExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    public init(
        source: any DeviceSource, overrideStore: LowPowerOverrideStore?, clock: any JouleClock,
        configuration: Configuration = Configuration(), warn: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(HardwareError) {
        loop = try LoopExecutor(name: "joule-energy")
        self.source = source
        self.overrideStore = overrideStore
        self.clock = clock
        self.configuration = configuration
        self.warn = warn
        power = PowerStateMachine(configuration: configuration.power)
        thermal = ThermalStateMachine(confirmations: configuration.thermalConfirmations)
    }

    deinit { loop.stop() }

    public var lowPowerMode: Bool { power.lowPowerMode }
    public var lowPowerModeSource: LowPowerModeSource { power.source }
    public var lowPowerOverride: LowPowerOverride { power.override }
    public var thermalState: ThermalState { thermal.state }
    public var warningLevel: BatteryWarningLevel { power.warningLevel }
    /// The composite battery percentage, nil without a battery.
    public var percentage: Double? { supplies?.composite?.percentage }
    public var onBattery: Bool { supplies?.onBattery ?? false }
    /// Some line power source is online (deferred transfers' "on AC", never the battery status).
    public var lineOnline: Bool { supplies?.lineOnline ?? false }
    /// The last power supply reading; nil before `start`.
    public var lastSupplies: PowerSupplies? { supplies }
    /// The last thermal reading (zones, hwmon inputs, cooling devices).
    public var lastThermal: ThermalReadings { thermalReadings }

    /// The power supplies read now, outside the schedule and without feeding the state
    /// machines (the next scheduled read does that): the sleep account notes the battery at
    /// the moment logind announces a sleep, not at the last poll. nil when the read fails.
    public func readSuppliesNow() -> PowerSupplies? {
        do {
            return PowerSupplyParser.parse(try powerPoller.read(from: source, at: clock.now()), productName: productName)
        } catch {
            warn("power supplies: \(error)")
            return nil
        }
    }

    /// The engines' current view as a status snapshot: Low Power Mode and the thermal state
    /// as the engines decided them (with hysteresis and overrides), supplies and thermal
    /// readings from the last reads, CPU usage since the previous call (or since `start`).
    public func report() -> StatusReport {
        let now = try? CPUStatReader(root: configuration.procRoot).read()
        let usage = now.flatMap { now in cpuSample.flatMap { now.usagePercent(since: $0) } }
        if let now { cpuSample = now }
        var report = StatusReport(
            supplies: supplies ?? PowerSupplies(), thermal: thermalReadings, lowPowerOverride: power.override,
            power: configuration.power, cpuCores: (now?.cores).flatMap { $0 > 0 ? $0 : nil }, cpuUsagePercent: usage)
        report.lowPowerMode = power.lowPowerMode
        report.thermalState = thermal.state
        report.warningLevel = power.warningLevel
        return report
    }

    /// Sets the user's Low Power Mode choice (`SetLowPowerMode`), keeps it in the store, and
    /// applies it at once: the running loop's emitter hears the change.
    public func setOverride(_ value: LowPowerOverride) async throws(HardwareError) {
        try overrideStore?.save(value)
        heldOverride = value
        await handle(.input, emit: emitter ?? { _ in })
    }

    /// New thresholds (the daemon's SIGHUP): the next read decides under them.
    public func setPowerConfiguration(_ power: PowerStateMachine.Configuration) async {
        guard power != configuration.power else { return }
        configuration.power = power
        self.power.configuration = power
        await handle(.input, emit: emitter ?? { _ in })
    }

    /// The user chose (true) or left (false) power-profiles-daemon's power-saver.
    public func setProfileRequest(_ on: Bool) async {
        guard on != profileRequest else { return }
        profileRequest = on
        await handle(.input, emit: emitter ?? { _ in })
    }

    /// Calls `observe` after each power supply reading, once its events are emitted.
    public func setSuppliesObserver(_ observe: (@Sendable (PowerSupplies) async -> Void)?) {
        suppliesObserver = observe
    }

    /// Calls `beat` from the loop at least every `interval` while the loop keeps working
    /// (systemd's `WATCHDOG=1`); the loop wakes for it when nothing else is due.
    public func setHeartbeat(every interval: Duration, _ beat: @escaping @Sendable () -> Void) {
        heartbeat = (interval.inSeconds, beat)
        nextHeartbeat = clock.now()
    }

    /// The next wakeup: the earliest read due, or the watchdog's ping.
    private var nextDeadline: Double { min(nextPowerRead, nextThermalRead, nextHeartbeat) }

    /// Reads everything once, sets the engines' starting states without events, and returns
    /// the snapshot (the same content as `joule status`). Throws when the source cannot be read.
    @discardableResult
    public func start() throws(HardwareError) -> StatusReport {
        let override = overrideStore?.load() ?? heldOverride
        let supplyReader = PowerSupplyReader(source: source)
        productName = supplyReader.productName
        let report = try StatusReport.collect(
            supplies: supplyReader, thermal: ThermalReader(source: source), procRoot: configuration.procRoot,
            lowPowerOverride: override, power: configuration.power)
        let now = clock.now()
        power.start(report.supplies, override: override, at: now)
        thermal.start(report.thermal, at: now)
        supplies = report.supplies
        thermalReadings = report.thermal
        cpuSample = try? CPUStatReader(root: configuration.procRoot).read()
        nextPowerRead = now + configuration.schedule.powerInterval(power, supplies: supplies, now: now)
        nextThermalRead = now + configuration.schedule.thermalInterval(thermal)
        started = true
        return report
    }

    private enum Wake: Sendable {
        case timer
        case device(DeviceEvent)
        /// An override or profile choice set from outside.
        case input
    }

    /// Runs until the calling task is cancelled, handing every event to `emit` in order.
    /// The task prefers the engine's thread meanwhile, so what it awaits resumes there.
    public func run(emit: @escaping @Sendable (TimedEvent) async -> Void) async {
        await withTaskExecutorPreference(loop) { await self.runOnLoop(emit: emit) }
    }

    private func runOnLoop(emit: @escaping @Sendable (TimedEvent) async -> Void) async {
        emitter = emit
        defer { emitter = nil }
        if !started {
            do {
                try start()
            } catch {
                warn("cannot read devices: \(error)")
            }
        }
        var monitor: UdevMonitor?
        if configuration.useDeviceEvents {
            do {
                monitor = try source.monitor(subsystems: ["power_supply"])
            } catch {
                warn("no uevents, polling only: \(error)")
            }
        }
        guard let monitor else {
            // Polling only (a fixture tree, or no uevents): sleep in this task on the engine's
            // thread, so a poll costs that thread's one timer wakeup and no hops between tasks.
            while !Task.isCancelled {
                do {
                    try await clock.sleep(until: nextDeadline, on: loop)
                } catch {
                    break
                }
                await handle(.timer, emit: emit)
            }
            return
        }

        let (wakes, wake) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .bufferingNewest(64))
        let deviceTask = Task {
            for await event in monitor.events { wake.yield(.device(event)) }
        }
        var timer = arm(deadline: nextDeadline, wake: wake)
        defer {
            timer.cancel()
            deviceTask.cancel()
            monitor.stop()
        }
        for await reason in wakes {
            if Task.isCancelled { break }
            await handle(reason, emit: emit)
            timer.cancel()
            timer = arm(deadline: nextDeadline, wake: wake)
        }
    }

    /// One wakeup: reads what is due (or what a uevent names), updates the machines, emits.
    private func handle(_ reason: Wake, emit: @Sendable (TimedEvent) async -> Void) async {
        let now = clock.now()
        // Reads due soon ride along with this wakeup (not with a fixed interval, which
        // promises its own cadence).
        let slack = configuration.schedule.fixedInterval == nil ? configuration.schedule.coalescing.inSeconds : 0
        var readPower = now + slack >= nextPowerRead
        if case .input = reason { readPower = true }
        var readThermal = now + slack >= nextThermalRead
        if case .device(let event) = reason {
            // A uevent may add or remove a device: enumerate again rather than refresh.
            if event.subsystem == "power_supply" {
                readPower = true
                powerPoller.invalidate()
            } else {
                readThermal = true
                thermalPoller.invalidate()
                hwmonPoller.invalidate()
            }
        }
        let override = overrideStore?.load() ?? heldOverride
        if override != power.override { readPower = true }

        var events: [EnergyEvent] = []
        var read: PowerSupplies?
        if readPower {
            do {
                let fresh = PowerSupplyParser.parse(try powerPoller.read(from: source, at: now), productName: productName)
                events += power.update(fresh, override: override, profileRequest: profileRequest, at: now)
                supplies = fresh
                read = fresh
            } catch {
                warn("power supplies: \(error)")
            }
            nextPowerRead = now + configuration.schedule.powerInterval(power, supplies: supplies, now: now)
        }
        if readThermal {
            do {
                let readings = ThermalReader.parse(
                    thermal: try thermalPoller.read(from: source, at: now), hwmon: try hwmonPoller.read(from: source, at: now))
                thermalReadings = readings
                if let change = thermal.update(readings, at: now) {
                    events.append(.thermalStateDidChange(state: change.state, previous: change.previous, cause: change.cause))
                }
            } catch {
                warn("thermal: \(error)")
            }
            nextThermalRead = now + configuration.schedule.thermalInterval(thermal)
        }
        for event in events {
            await emit(TimedEvent(timestamp: now, event: event, lowPowerMode: power.lowPowerMode, thermalState: thermal.state))
        }
        if let read, let suppliesObserver { await suppliesObserver(read) }
        if let heartbeat, now >= nextHeartbeat {
            heartbeat.beat()
            nextHeartbeat = now + heartbeat.every
        }
    }

    /// A task that wakes the loop at `deadline`. It captures `self`, so it is isolated to the
    /// engine and starts, sleeps and wakes on the engine's thread.
    private func arm(deadline: Double, wake: AsyncStream<Wake>.Continuation) -> Task<Void, Never> {
        Task {
            do {
                try await self.clock.sleep(until: deadline, on: self.loop)
                wake.yield(.timer)
            } catch {
                // Cancelled: a newer deadline replaced this one.
            }
        }
    }
}
