import JouleWire
import JouleHardware
import JouleEnergy

/// Apple's `ProcessInfo` energy API for Linux programs: `isLowPowerModeEnabled`,
/// `thermalState`, and their change notifications: from `joule daemon` when it runs (its
/// D-Bus properties and signals, so every process agrees), else from Joule's engines in-process.
///
/// ```swift
/// let info = try await JouleProcessInfo.live()
/// if info.isLowPowerModeEnabled || info.thermalState >= .serious { deferOptionalWork() }
/// for await change in info.thermalStateChanges { adapt(to: change) }
/// ```
/// Tests and tools inject a device source (a fixture tree with `init(root:)`, or any
/// `DeviceSource`) and a clock (`ManualClock`) so nothing waits for real hardware or time.
public final class JouleProcessInfo: EnergyConditions {
    private let hub: Hub
    private let engine: Task<Void, Never>

    /// `joule daemon`'s state when it owns `org.joule.Energy1` on the session or system bus
    /// (`configuration` is then the daemon's business); otherwise the system as libudev sees it,
    /// with the user's Low Power Mode override.
    public static func live(configuration: EnergyMonitor.Configuration = .init()) async throws(HardwareError) -> JouleProcessInfo {
        try await live(configuration: configuration, environment: CurrentProcess.environment())
    }

    /// `live()` with the environment that names the buses.
    static func live(configuration: EnergyMonitor.Configuration, environment: [String: String]) async throws(HardwareError) -> JouleProcessInfo {
        // The info follows the daemon's signals for as long as it lives.
        try await DaemonClient.withDaemonOrLocal(
            environment: environment, following: true
        ) { daemon throws(HardwareError) -> JouleProcessInfo? in
            // A daemon that vanishes between the lookup and the first read is as good as none.
            try? await JouleProcessInfo(daemon: daemon)
        } local: { () throws(HardwareError) -> JouleProcessInfo in
            try await JouleProcessInfo(
                source: UdevDeviceSource(), overrideStore: LowPowerOverrideStore.forCurrentUser(),
                clock: SystemClock(), configuration: configuration)
        }
    }

    /// Follows `daemon`: the values from its properties, then its signals and PropertiesChanged.
    /// `events` carries powerStateDidChange, thermalStateDidChange and warningLevelChanged (the
    /// daemon announces no per-battery events); every stream ends if the daemon leaves the bus.
    init(daemon: DaemonClient, clock: any JouleClock = SystemClock()) async throws(BusError) {
        let events = try await daemon.events(clock: clock)
        let state = try await daemon.state()
        let hub = Hub(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState)
        self.hub = hub
        engine = Task {
            for await event in events {
                switch event {
                case .energy(let timed): hub.publish(timed)
                case .state(let state): hub.set(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState)
                }
            }
            hub.finishAll()
        }
    }

    /// A fixture tree (`ROOT/sys`, `ROOT/proc`), polled.
    public convenience init(
        root: String, overrideStore: LowPowerOverrideStore? = nil, clock: any JouleClock = SystemClock(),
        configuration: EnergyMonitor.Configuration = .init()
    ) async throws(HardwareError) {
        let source = SysfsDeviceSource(root: root)
        try source.checkRoot()
        var configuration = configuration
        configuration.procRoot = root
        try await self.init(source: source, overrideStore: overrideStore, clock: clock, configuration: configuration)
    }

    /// Starts the engines on `source`; returns once the first reading is in.
    public init(
        source: any DeviceSource, overrideStore: LowPowerOverrideStore?, clock: any JouleClock,
        configuration: EnergyMonitor.Configuration = .init()
    ) async throws(HardwareError) {
        let monitor = try EnergyMonitor(source: source, overrideStore: overrideStore, clock: clock, configuration: configuration)
        try await monitor.start()
        let hub = Hub(lowPowerMode: await monitor.lowPowerMode, thermalState: await monitor.thermalState)
        self.hub = hub
        engine = Task { await monitor.run { hub.publish($0) } }
    }

    deinit {
        engine.cancel()
        hub.finishAll()
    }

    /// Whether Low Power Mode is on (automatically or by the user's override).
    public var isLowPowerModeEnabled: Bool { hub.state.withLock { $0.lowPowerMode } }

    /// The current thermal state, with hysteresis and debounce applied.
    public var thermalState: ThermalState { hub.state.withLock { $0.thermalState } }

    /// Every event the engines emit (power, thermal, batteries, line power, warnings).
    public var events: AsyncStream<TimedEvent> { hub.subscribe { $0 } }

    /// Like `NSProcessInfoPowerStateDidChange`: the new Low Power Mode value on each change.
    public var lowPowerModeChanges: AsyncStream<Bool> {
        hub.subscribe { event in
            if case .powerStateDidChange(let on, _) = event.event { return on }
            return nil
        }
    }

    /// Like `thermalStateDidChangeNotification`: the new thermal state on each change.
    public var thermalStateChanges: AsyncStream<ThermalState> {
        hub.subscribe { event in
            if case .thermalStateDidChange(let state, _, _) = event.event { return state }
            return nil
        }
    }

    /// Stops the engines and ends every stream.
    public func invalidate() {
        engine.cancel()
        hub.finishAll()
    }

    /// Latest states and subscribers, shared by the engine task and callers on any thread.
    final class Hub: Sendable {
        struct State {
            var lowPowerMode: Bool
            var thermalState: ThermalState
            var subscribers: [Int: @Sendable (TimedEvent?) -> Void] = [:]
            var nextID = 0
        }

        let state: Locked<State>

        init(lowPowerMode: Bool, thermalState: ThermalState) {
            state = Locked(State(lowPowerMode: lowPowerMode, thermalState: thermalState))
        }

        /// New values without an event (a daemon's PropertiesChanged).
        func set(lowPowerMode: Bool, thermalState: ThermalState) {
            state.withLock { state in
                state.lowPowerMode = lowPowerMode
                state.thermalState = thermalState
            }
        }

        func publish(_ event: TimedEvent) {
            let subscribers = state.withLock { state in
                state.lowPowerMode = event.lowPowerMode
                state.thermalState = event.thermalState
                return Array(state.subscribers.values)
            }
            for deliver in subscribers { deliver(event) }
        }

        /// A stream of `transform(event)` for each event where it is non-nil.
        func subscribe<Element: Sendable>(_ transform: @escaping @Sendable (TimedEvent) -> Element?) -> AsyncStream<Element> {
            let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(256))
            let id = state.withLock { state -> Int in
                state.nextID += 1
                state.subscribers[state.nextID] = { event in
                    guard let event else {
                        continuation.finish()
                        return
                    }
                    if let element = transform(event) { continuation.yield(element) }
                }
                return state.nextID
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
            return stream
        }

        func finishAll() {
            let subscribers = state.withLock { state in
                defer { state.subscribers.removeAll() }
                return Array(state.subscribers.values)
            }
            for deliver in subscribers { deliver(nil) }
        }
    }
}
