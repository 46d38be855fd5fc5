#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

/// Supervises apps: one `AppLifecycleMachine` each, carried out through the app's actuator
/// (cgroup freezer or process-tree signals), heard and told through its lifecycle socket.
/// `joule run` runs one for its own app when no daemon runs; the daemon runs one for every
/// app registered with it.
///
/// It sleeps on one timer, set to the earliest of: a machine's deadline, a standing request's
/// second look (the 1 s debounce), a pending freeze's next check (every 100 ms, only while a
/// freeze waits for `frozen 1`), and the next CPU sample of an app that runs in the
/// background (only then: the CPU limit applies nowhere else).
package actor AppSupervisor {
    private struct App {
        var registration: AppRegistration
        var machine: AppLifecycleMachine
        var socket: SeqPacketServer?
        var listener: Task<Void, Never>?
        /// A background/suspend request seen once, to be asked again at `due`.
        var standing: (request: AppLifecycleRequest, due: Double)?
        var freezeCheck: Double?
        var history = CPUUsageHistory()
        var nextSample: Double?
        var lastSample: (time: Double, nanoseconds: UInt64)?
        var cpuPercent: Double?
        var exited = false
    }

    private let clock: any JouleClock
    private let ledger: AppPauseLedger?
    private var ledgerState: AppPauseLedger?
    private let reports: ReportStore?
    private let log: @Sendable (String) -> Void
    private var apps: [String: App] = [:]
    private var order: [String] = []
    private var subscribers: [Int: AsyncStream<AppEventLine>.Continuation] = [:]
    private var nextSubscriber = 1
    private var timer: Task<Void, Never>?
    private var timerDue: Double?
    /// Which timer is the current one: a timer that woke but was replaced before it reached
    /// the actor (cancelling it came too late) must not fire, or it would orphan the current
    /// one, which `releaseAll` then could not cancel.
    private var timerGeneration = 0
    private var lowPowerMode = false
    private var thermalState = ThermalState.nominal

    /// How often a pending freeze is looked at until it is confirmed or given up.
    static let freezeCheckInterval = 0.1

    /// - Parameters:
    ///   - ledger: where holds are journaled before acting; nil keeps none (tests).
    ///   - reports: where CPU_FATAL reports go; nil writes none.
    package init(clock: any JouleClock, ledger: AppPauseLedger?, reports: ReportStore?, log: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.ledger = ledger
        ledgerState = ledger
        self.reports = reports
        self.log = log
    }

    // MARK: apps

    /// Starts supervising an app; it starts `active`. Listens on its lifecycle socket when
    /// one is given.
    /// `announce` false leaves the "supervised" line to `announce(_:)`, for a caller that has yet
    /// to start the program (a program that cannot start was never supervised).
    package func add(
        _ registration: AppRegistration, socketOwner: (uid: UInt32, gid: UInt32)? = nil, announce: Bool = true
    ) throws(AppSupervisorError) {
        let name = registration.name
        guard AppSupervisorError.isValidName(name) else { throw .invalidName(name) }
        guard apps[name] == nil else { throw .nameInUse(name) }
        var configuration = registration.configuration
        configuration.suspension = registration.actuator.suspension
        var app = App(registration: registration, machine: AppLifecycleMachine(configuration: configuration))
        let now = clock.now()
        _ = app.machine.conditions(lowPowerMode: lowPowerMode, thermalState: thermalState, at: now)
        if let path = registration.socketPath {
            do {
                let socket = try SeqPacketServer(path: path, mode: 0o600, limit: LifecycleMessage.maxBytes)
                if let socketOwner { try socket.giveTo(uid: socketOwner.uid, gid: socketOwner.gid) }
                app.socket = socket
                app.listener = Task { [weak self] in
                    for await event in socket.events { await self?.heard(event, app: name) }
                }
            } catch {
                throw .socket(error.description)
            }
        }
        apps[name] = app
        order.append(name)
        if announce { self.announce(name) }
        reschedule()
    }

    /// Logs that `name` is supervised, and how.
    package func announce(_ name: String) {
        guard let registration = apps[name]?.registration else { return }
        log("\(name) [\(registration.identity.pid)]: supervised, \(describe(registration))")
    }

    /// The app's main process ended: records `exited`, resumes whatever is still held, and
    /// stops supervising it.
    package func exited(_ name: String, detail: String) {
        guard var app = apps[name] else { return }
        apply(app.machine.exited(detail: detail, at: clock.now()), to: &app)
        release(&app)
        app.exited = true
        apps[name] = nil
        order.removeAll { $0 == name }
        reschedule()
    }

    /// Thaws or continues every app and closes the sockets (on exit or a signal); the apps
    /// keep running.
    package func releaseAll() {
        for name in order {
            guard var app = apps[name] else { continue }
            release(&app)
            apps[name] = app
        }
        timer?.cancel()
        timer = nil
    }

    private func release(_ app: inout App) {
        do {
            try app.registration.actuator.resume()
        } catch {
            log("\(app.registration.name): cannot resume: \(error)")
        }
        clearLedger(app.registration.name)
        app.socket?.stop()
        app.listener?.cancel()
        app.socket = nil
    }

    /// The names of the apps supervised now, in the order they came.
    package var names: [String] { order }

    /// The uid an app runs as, for authorization; nil when unknown.
    package func owner(of name: String) -> UInt32? { apps[name]?.registration.uid }

    // MARK: requests

    /// A transition asked by the CLI or D-Bus.
    package func request(_ request: AppLifecycleRequest, app name: String) throws(AppSupervisorError) {
        guard var app = apps[name] else { throw .unknownApp(name, known: order) }
        submit(request, to: &app, at: clock.now())
        apps[name] = app
        reschedule()
    }

    /// A user's session locked or went idle: every active app of that user (nil: of every
    /// user) becomes inactive.
    package func sessionInactive(uid: UInt32? = nil) {
        let now = clock.now()
        for name in order {
            guard var app = apps[name], uid == nil || app.registration.uid == uid else { continue }
            submit(.inactive, to: &app, at: now)
            apps[name] = app
        }
        reschedule()
    }

    /// Low Power Mode or the thermal state changed: grace and budget are halved while either
    /// constrains.
    package func setConditions(lowPowerMode: Bool, thermalState: ThermalState) {
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
        let now = clock.now()
        for name in order {
            guard var app = apps[name] else { continue }
            apply(app.machine.conditions(lowPowerMode: lowPowerMode, thermalState: thermalState, at: now), to: &app)
            apps[name] = app
        }
        reschedule()
    }

    private func submit(_ request: AppLifecycleRequest, to app: inout App, at now: Double) {
        let before = app.machine.state
        let output = app.machine.request(request, at: now)
        // The first sighting of a move to the background only records it: look again at the
        // deadline, unless another request comes first.
        if (request == .background || request == .suspend), before.isForeground, app.machine.state == before,
           let due = output.deadline, output.actions.isEmpty {
            app.standing = (request, due)
        } else {
            app.standing = nil
        }
        apply(output, to: &app)
    }

    // MARK: listing and events

    package func list() -> [AppListEntry] {
        let now = clock.now()
        return order.compactMap { name in
            guard var app = apps[name] else { return nil }
            let percent = measure(&app, at: now)
            apps[name] = app
            return AppListEntry(app: name, pid: app.registration.identity.pid, cgroup: app.registration.actuator.cgroup,
                                cpuPercent: percent, machine: app.machine, source: app.registration.source)
        }
    }

    /// Notices sent to subscribers so far: a test waits until its subscriber has seen this
    /// many before it counts what comes later.
    private(set) var noticesSent = 0

    /// Every transition of every app from now on, as `joule app events` prints them.
    package func events() -> AsyncStream<AppEventLine> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppEventLine.self, bufferingPolicy: .bufferingNewest(1024))
        let id = nextSubscriber
        nextSubscriber += 1
        guard !eventsFinished else {
            continuation.finish()  // the supervisor is going away: nothing more will come
            return stream
        }
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
        return stream
    }

    private func unsubscribe(_ id: Int) { subscribers[id] = nil }
    private var eventsFinished = false

    /// Ends every event stream (the supervisor is going away).
    package func finishEvents() {
        eventsFinished = true
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }

    // MARK: the socket

    private func heard(_ event: SeqPacketServer.Event, app name: String) {
        guard var app = apps[name] else { return }
        let now = clock.now()
        switch event {
        case .connected:
            break
        case .refused(let failure):
            log("\(name): lifecycle socket: refused a client: \(failure)")
        case .packet(let id, let bytes, let length):
            let message: LifecycleMessage
            do {
                message = try LifecycleMessage.decodeRequest(bytes, length: length)
            } catch {
                log("\(name): lifecycle connection \(id): ignored a message: \(error)")
                return
            }
            let received = app.machine.receive(message, connection: id, at: now)
            if let error = received.error { log("\(name): lifecycle connection \(id): \(error)") }
            if let reply = received.reply, app.socket?.send(reply.encoded, to: id) == false {
                log("\(name): lifecycle connection \(id): the reply could not be sent")
            }
            apply(received.output, to: &app)
        case .closed(let id):
            apply(app.machine.connectionClosed(id, at: now), to: &app)
        }
        apps[name] = app
        reschedule()
    }

    // MARK: acting

    private func apply(_ output: AppLifecycleMachine.Output, to app: inout App) {
        let name = app.registration.name
        let actuator = app.registration.actuator
        let now = clock.now()
        // A CPU report describes the process while it still exists: build it before the kill.
        for case .report(let report) in output.actions {
            if case .cpuFatal(_, _, let usage) = report { writeReport(for: app, usage: usage, at: now) }
        }
        for action in output.actions {
            switch action {
            case .notify(let notice):
                let line = AppEventLine(app: name, pid: app.registration.identity.pid, notice: notice)
                noticesSent += 1
                for continuation in subscribers.values { continuation.yield(line) }
                if let message = notice.message { app.socket?.broadcast(message.encoded) }
            case .freeze, .stopTree:
                pause(&app)
            case .thaw, .continueTree:
                do {
                    try actuator.resume()
                } catch {
                    log("\(name): cannot resume: \(error)")
                }
                app.freezeCheck = nil
                clearLedger(name)
            case .sigterm:
                actuator.signalAll(.term)
            case .sigkill, .cgroupKill:
                actuator.signalAll(.kill)
            case .report(let report):
                log("\(name): \(report.summary)")
            }
        }
        // A move into or out of the running background starts or stops the CPU watch.
        if app.machine.cpuLimitApplies {
            if app.nextSample == nil {
                app.history = CPUUsageHistory()
                sample(&app, at: now)
            }
        } else {
            app.nextSample = nil
        }
        if app.machine.isAwaitingFreeze, app.freezeCheck == nil { app.freezeCheck = now }
    }

    private func pause(_ app: inout App) {
        let name = app.registration.name
        let actuator = app.registration.actuator
        let targets = actuator.targets()
        do {
            if var ledger = ledgerState {
                try ledger.record(name, targets)
                ledgerState = ledger
            }
        } catch {
            // Unjournaled, a SIGKILL could leave it paused for good: do not pause.
            log("\(name): not suspended: the pause journal cannot be written: \(error)")
            return
        }
        do {
            try actuator.pause(targets)
        } catch {
            log("\(name): suspending failed: \(error)")
        }
        app.freezeCheck = clock.now()
    }

    private func clearLedger(_ name: String) {
        guard var ledger = ledgerState else { return }
        do {
            try ledger.clear(name)
        } catch {
            log("\(name): cannot update the pause journal: \(error)")
        }
        ledgerState = ledger
    }

    private func writeReport(for app: App, usage: WindowUsage, at now: Double) {
        guard let reports else { return }
        let registration = app.registration
        var configuration = CPUMonitorConfiguration()
        configuration.limitPercent = registration.configuration.cpuLimitPercent
        configuration.window = registration.configuration.cpuWindow
        configuration.action = .kill
        let procfs = ProcFS()
        let pid = registration.identity.pid
        let threads = procfs.threadStats(pid).map { ResourceReportBuilder.ThreadSample(stat: $0, cpuSeconds: nil) }
        let stat = (try? procfs.stat(pid)) ?? nil
        let facts = stat.map { stat in
            ProcessFacts(identity: registration.identity, name: stat.comm, ppid: stat.ppid, isKernelThread: false,
                         uid: registration.uid, commandLine: procfs.commandLine(pid), cgroup: registration.actuator.cgroup ?? procfs.cgroup(pid))
        }
        let builder = ResourceReportBuilder(inspector: ProcessInspector(), system: SystemIdentity.read(), configuration: configuration)
        let how = registration.actuator.suspension == .cgroupFreezer ? "killed the app's cgroup (cgroup.kill)" : "killed the app's processes (SIGKILL)"
        let report = builder.report(
            registration.identity, facts: facts, threads: threads, usage: usage, time: now, fatal: true,
            actionTaken: how, terminationReason: "CPU_FATAL in the background: app \(registration.name)")
        do {
            let stored = try reports.write(report)
            log("\(registration.name): CPU_FATAL report \(stored.textPath)")
        } catch {
            log("\(registration.name): cannot write the CPU_FATAL report: \(error)")
        }
    }

    // MARK: time

    private func reschedule() {
        var due: Double?
        for app in apps.values {
            for candidate in [app.machine.nextDeadline, app.standing?.due, app.freezeCheck, app.nextSample] {
                if let candidate, candidate < (due ?? .infinity) { due = candidate }
            }
        }
        guard due != timerDue || timer == nil else { return }
        timer?.cancel()
        timerDue = due
        guard let due else {
            timer = nil
            return
        }
        let clock = clock
        timerGeneration += 1
        let generation = timerGeneration
        timer = Task { [weak self] in
            do {
                try await clock.sleep(until: due)
            } catch {
                return
            }
            await self?.fire(generation)
        }
    }

    private func fire(_ generation: Int) {
        guard generation == timerGeneration, timer != nil else { return }
        timer = nil
        timerDue = nil
        let now = clock.now()
        for name in order {
            guard var app = apps[name] else { continue }
            if let standing = app.standing, standing.due <= now {
                app.standing = nil
                submit(standing.request, to: &app, at: now)
            }
            if let deadline = app.machine.nextDeadline, deadline <= now {
                apply(app.machine.tick(at: now), to: &app)
            }
            if let check = app.freezeCheck, check <= now {
                if !app.machine.isAwaitingFreeze {
                    app.freezeCheck = nil
                } else if app.registration.actuator.isPaused() {
                    app.freezeCheck = nil
                    apply(app.machine.freezeConfirmed(at: now), to: &app)
                } else {
                    // A process that forked since the last look is stopped too (the tree);
                    // for a cgroup the kernel is still freezing.
                    if app.registration.actuator.suspension == .stopSignals { pause(&app) }
                    app.freezeCheck = now + Self.freezeCheckInterval
                }
            }
            if let next = app.nextSample, next <= now {
                sample(&app, at: now)
            }
            apps[name] = app
        }
        reschedule()
    }

    // MARK: CPU

    /// How often a background app's CPU is sampled: a twelfth of the window, 0.25 s to 5 s.
    private static func sampleInterval(_ window: Duration) -> Double { min(max(window.inSeconds / 12, 0.25), 5) }

    private func sample(_ app: inout App, at now: Double) {
        let configuration = app.registration.configuration
        guard app.machine.cpuLimitApplies, let nanoseconds = app.registration.actuator.cpuNanoseconds() else {
            app.nextSample = nil
            return
        }
        app.history.append(time: now, nanoseconds: nanoseconds)
        app.history.trim(now: now, window: configuration.cpuWindow)
        app.lastSample = (now, nanoseconds)
        let interval = Self.sampleInterval(configuration.cpuWindow)
        app.nextSample = now + interval
        if let usage = app.history.usage() {
            app.cpuPercent = usage.percent
            // Judged over the window less one sampling interval (and a half for timer drift):
            // trimming keeps no sample older than the window, so the span is never longer.
            if usage.observedSeconds >= configuration.cpuWindow.inSeconds - interval * 1.5,
               usage.percent > configuration.cpuLimitPercent {
                apply(app.machine.cpuLimitExceeded(usage, at: now), to: &app)
            }
        }
    }

    /// CPU % since the last look (for the list), or nil on the first.
    private func measure(_ app: inout App, at now: Double) -> Double? {
        guard let nanoseconds = app.registration.actuator.cpuNanoseconds() else { return nil }
        defer { app.lastSample = (now, nanoseconds) }
        guard let last = app.lastSample, now - last.time >= 0.05, nanoseconds >= last.nanoseconds else { return app.cpuPercent }
        app.cpuPercent = Double(nanoseconds - last.nanoseconds) / 1e9 / (now - last.time) * 100
        return app.cpuPercent
    }

    private func describe(_ registration: AppRegistration) -> String {
        let c = registration.configuration
        let how = registration.actuator.cgroup.map { "cgroup \($0)" } ?? "process tree (SIGSTOP/SIGCONT)"
        return "grace \(c.grace.inSeconds) s, background budget \(c.backgroundBudget.inSeconds) s, CPU limit \(c.cpuLimitPercent)% over \(c.cpuWindow.inSeconds) s, \(c.suspends ? "suspends" : "no suspend"), \(how)"
    }
}
