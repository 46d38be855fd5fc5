import JouleHardware
import JouleEnergy

/// `joule enforce` as an engine: one run per state directory (a lock), recovery of what a
/// killed run left paused (the journal), Low Power Mode and the thermal state from an
/// `EnergyMonitor`, selectors re-resolved while anything is paused, and everything resumed
/// when the run ends, whatever ends it. The CLI, the daemon and the tests drive the same loop.
public struct EnforcementSession: Sendable {
    public struct Options: Sendable {
        public var policy: EnforcePolicy
        public var stateDirectory: StateDirectory
        /// Decide and report, but never signal, freeze or write the journal.
        public var dryRun = false
        /// Poll the states and re-resolve selectors at this fixed interval instead of adaptive
        /// polling and the policy's rescan interval.
        public var interval: Duration?
        /// Where the cgroup v2 hierarchy lives (`ROOT/sys/fs/cgroup`); "/" live.
        public var cgroupRoot = "/"

        public init(policy: EnforcePolicy, stateDirectory: StateDirectory) {
            self.policy = policy
            self.stateDirectory = stateDirectory
        }
    }

    /// What the session reports while it runs, in order.
    public enum Output: Sendable {
        /// The states it starts from, once the engines have read them.
        case started(classes: Int, lowPowerMode: Bool, thermalState: ThermalState, dryRun: Bool)
        case action(EnforcementAction)
        /// `--resume-all` found no journal.
        case nothingLeftPaused
        case warning(String)
    }

    public enum Failure: Error, Sendable, CustomStringConvertible {
        case cannotLock(path: String, HardwareError)
        case locked(path: String)
        case enforcer(EnforcerError)
        case devices(HardwareError)

        public var description: String {
            switch self {
            case .cannotLock(let path, let error): "cannot lock \(path): \(error)"
            case .locked(let path):
                "another joule enforce is running with this state directory (\(path) is locked)"
            case .enforcer(let error): "\(error)"
            case .devices(let error): "\(error)"
            }
        }
    }

    public static let lockFileName = "enforce.lock"

    public let options: Options

    public init(options: Options) { self.options = options }

    /// Resumes what an earlier run left in the journal, then returns.
    public func resumeLeftovers(clock: any JouleClock, emit: @escaping @Sendable (Output) -> Void) async throws(Failure) {
        try await withLock(clock: clock, emit: emit) { (enforcer) async throws(Failure) in
            let recovered = try await recover(enforcer, emit: emit)
            if recovered.isEmpty { emit(.nothingLeftPaused) }
        }
    }

    /// Low Power Mode and the thermal state, as the session follows them.
    public struct States: Sendable, Hashable {
        public var lowPowerMode: Bool
        public var thermalState: ThermalState

        public init(lowPowerMode: Bool, thermalState: ThermalState) {
            self.lowPowerMode = lowPowerMode
            self.thermalState = thermalState
        }
    }

    /// Enforces the policy until `stop` yields a signal (or finishes), then resumes everything.
    /// Energy states come from `source` (libudev live, or a fixture tree) with `/proc` under
    /// `procRoot`; `overrideStore` holds the user's Low Power Mode choice.
    public func run(
        source: any DeviceSource, procRoot: String, overrideStore: LowPowerOverrideStore?, clock: any JouleClock,
        stop: AsyncStream<TerminationSignal>, emit: @escaping @Sendable (Output) -> Void
    ) async throws(Failure) {
        try await withLock(clock: clock, emit: emit) { (enforcer) async throws(Failure) in
            _ = try await recover(enforcer, emit: emit)
            var configuration = EnergyMonitor.Configuration()
            configuration.schedule.fixedInterval = options.interval
            configuration.procRoot = procRoot
            let monitor: EnergyMonitor
            do throws(HardwareError) {
                monitor = try EnergyMonitor(
                    source: source, overrideStore: overrideStore, clock: clock, configuration: configuration,
                    warn: { emit(.warning($0)) })
            } catch {
                throw Failure.devices(error)
            }
            let snapshot: StatusReport
            switch await Self.start(monitor) {
            case .success(let report): snapshot = report
            case .failure(let error): throw Failure.devices(error)
            }
            await enforce(
                enforcer, initial: States(lowPowerMode: snapshot.lowPowerMode, thermalState: snapshot.thermalState),
                states: { deliver in
                    await monitor.run { event in
                        await deliver(States(lowPowerMode: event.lowPowerMode, thermalState: event.thermalState))
                    }
                },
                clock: clock, stop: stop, emit: emit)
        }
    }

    /// Enforces the policy following states someone else's engine delivers (the daemon's),
    /// until `stop` yields a signal or finishes; then resumes everything.
    public func run(
        initial: States, states: AsyncStream<States>, clock: any JouleClock, stop: AsyncStream<TerminationSignal>,
        emit: @escaping @Sendable (Output) -> Void
    ) async throws(Failure) {
        try await withLock(clock: clock, emit: emit) { (enforcer) async throws(Failure) in
            _ = try await recover(enforcer, emit: emit)
            await enforce(
                enforcer, initial: initial, states: { deliver in for await next in states { await deliver(next) } },
                clock: clock, stop: stop, emit: emit)
        }
    }

    /// The loop both `run`s share: apply the first states, follow the rest, resume all at the end.
    private func enforce(
        _ enforcer: Enforcer<PidfdProcessController>, initial: States,
        states: @escaping @Sendable (_ deliver: @escaping @Sendable (States) async -> Void) async -> Void,
        clock: any JouleClock, stop: AsyncStream<TerminationSignal>, emit: @escaping @Sendable (Output) -> Void
    ) async {
        emit(.started(
            classes: options.policy.classes.count, lowPowerMode: initial.lowPowerMode,
            thermalState: initial.thermalState, dryRun: options.dryRun))
        for action in await enforcer.update(lowPowerMode: initial.lowPowerMode, thermalState: initial.thermalState) {
            emit(.action(action))
        }
        let loop = Task { await follow(states, enforcer, clock: clock, emit: emit) }
        var received: TerminationSignal?
        for await signal in stop {
            received = signal
            break
        }
        loop.cancel()
        await loop.value
        let reason = received.map { "signal:\($0)" } ?? "exit"
        for action in await enforcer.resumeAll(reason: reason) { emit(.action(action)) }
    }

    /// Applies every state change, and re-resolves selectors every rescan interval while
    /// something is paused: an idle enforcer wakes for nothing but the engines' own polls.
    private func follow(
        _ states: @escaping @Sendable (_ deliver: @escaping @Sendable (States) async -> Void) async -> Void,
        _ enforcer: Enforcer<PidfdProcessController>, clock: any JouleClock, emit: @escaping @Sendable (Output) -> Void
    ) async {
        let rescan = options.interval ?? options.policy.rescanInterval
        let (pauses, pauseStarted) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        if !(await enforcer.pausedClasses.isEmpty) { pauseStarted.yield() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await states { next in
                    for action in await enforcer.update(lowPowerMode: next.lowPowerMode, thermalState: next.thermalState) {
                        emit(.action(action))
                    }
                    if !(await enforcer.pausedClasses.isEmpty) { pauseStarted.yield() }
                }
                pauseStarted.finish()
            }
            group.addTask {
                var pauseSignals = pauses.makeAsyncIterator()
                while !Task.isCancelled {
                    if await enforcer.pausedClasses.isEmpty {
                        guard await pauseSignals.next() != nil else { return }
                        continue
                    }
                    do {
                        try await clock.sleep(for: rescan)
                    } catch {
                        return
                    }
                    for action in await enforcer.rescan() { emit(.action(action)) }
                }
            }
        }
    }

    private static func start(_ monitor: EnergyMonitor) async -> Result<StatusReport, HardwareError> {
        do {
            return .success(try await monitor.start())
        } catch {
            return .failure(error)
        }
    }

    private func recover(_ enforcer: Enforcer<PidfdProcessController>, emit: (Output) -> Void) async throws(Failure) -> [EnforcementAction] {
        let recovered: [EnforcementAction]
        do {
            recovered = try await enforcer.recoverJournal()
        } catch {
            throw .enforcer(error)
        }
        for action in recovered { emit(.action(action)) }
        return recovered
    }

    /// Installs the crash guards, takes the state directory's lock (not in a dry run, which
    /// touches nothing), and runs `body` with an enforcer on the live processes and cgroups.
    private func withLock(
        clock: any JouleClock, emit: @escaping @Sendable (Output) -> Void,
        _ body: (Enforcer<PidfdProcessController>) async throws(Failure) -> Void
    ) async throws(Failure) {
        // Before anything can be paused: a crash continues and thaws it, and a closed stdout
        // (EPIPE instead of SIGPIPE) cannot kill the run while it holds work paused.
        PidfdProcessController.installCrashGuards()
        let directory = options.stateDirectory
        var lock: ExclusiveLock?
        if !options.dryRun {
            let path = directory.file(Self.lockFileName)
            do {
                try directory.create(mode: 0o700)
                lock = try ExclusiveLock.acquire(path)
            } catch {
                throw .cannotLock(path: path, error)
            }
            if lock == nil { throw .locked(path: path) }
        }
        defer { lock?.release() }
        let safety = SafetyRules.current()
        let enforcer = Enforcer(
            policy: options.policy,
            resolver: ProcWorkloadResolver(cgroupRoot: options.cgroupRoot, safety: safety),
            controller: PidfdProcessController(cgroupRoot: options.cgroupRoot),
            journal: PauseJournal(directory: directory.path), owner: (try? ProcFS().stat(safety.pid))?.identity,
            clock: clock, dryRun: options.dryRun, warn: { emit(.warning($0)) })
        try await body(enforcer)
    }
}
