import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

/// The lifecycle of one supervised app, as a pure value: inputs (requests, socket messages,
/// the freeze's confirmation, the app's exit, Low Power Mode and the thermal state, the CPU
/// monitor's verdict) come in with the time they happen, and each returns the actions the
/// process side must carry out and the next deadline at which `tick(at:)` must be called.
///
/// The rules (issue 14, binding):
/// - active → inactive: `willResignActive` (an app in the background stays there). → background: `didEnterBackground`, then the grace
///   period. Background (or a suspend from the foreground) is taken only once the request has
///   been seen twice, `debounce` apart, with no other request between: the caller asks again at
///   the deadline it is given, so a blip never freezes an app.
/// - No open background task at the end of the grace period: freeze, and `suspended` once the
///   freeze is confirmed. Not confirmed within `freezeConfirmation`: thaw, report, leave it
///   running in the background.
/// - Open tasks keep it running until all end or the budget since entering the background is
///   spent; `backgroundTimeWillExpire` comes `expiryWarning` before the end. Tasks still open
///   at the end are counted as leaked and closed, and the app is suspended.
/// - Foreground: thaw first, then `willEnterForeground` and `didBecomeActive`.
/// - Terminate: thaw first (a frozen process cannot handle SIGTERM), SIGTERM, and after
///   `terminationGrace` SIGKILL or `cgroup.kill`.
/// - The CPU limit applies only in the background: over it, the app is killed with a
///   `CPU_FATAL` report.
/// - While Low Power Mode is on or the thermal state is serious or worse, grace and budget are
///   halved (deadlines are recomputed from the moment the app entered the background).
/// - A socket that closes ends the tasks it began.
package struct AppLifecycleMachine: Sendable {
    package struct Configuration: Sendable, Hashable {
        /// How long a backgrounded app without open tasks keeps running (`--grace`).
        package var grace: Duration = .seconds(5)
        /// How long open tasks may keep it running, counted from entering the background
        /// (`--background-budget`).
        package var backgroundBudget: Duration = .seconds(30)
        /// How long before the end of the budget the app hears `backgroundTimeWillExpire`.
        package var expiryWarning: Duration = .seconds(5)
        /// How far apart two sightings of a background request must be.
        package var debounce: Duration = .seconds(1)
        /// How long a freeze may take to be confirmed before it is undone.
        package var freezeConfirmation: Duration = .seconds(10)
        /// How long after SIGTERM the app is killed.
        package var terminationGrace: Duration = .seconds(5)
        /// The CPU limit in the background, percent of one core over `cpuWindow` (`--cpu-limit`,
        /// `--cpu-window`), for the monitor the process side runs.
        package var cpuLimitPercent: Double = 80
        package var cpuWindow: Duration = .seconds(60)
        /// False (`--no-suspend`): the app is never suspended by itself, only on request.
        package var suspends = true
        package var suspension: AppSuspension = .cgroupFreezer

        package init() {}
    }

    /// What one input asks of the process side.
    package struct Output: Sendable, Hashable {
        package var actions: [AppLifecycleAction]
        /// When to call `tick(at:)` (or, for a debounced request, to ask again); nil: nothing
        /// is due.
        package var deadline: Double?

        package init(actions: [AppLifecycleAction] = [], deadline: Double? = nil) {
            self.actions = actions
            self.deadline = deadline
        }

        /// The transitions among the actions, in order.
        package var notices: [AppLifecycleNotice] {
            actions.compactMap { if case .notify(let notice) = $0 { notice } else { nil } }
        }

        /// The events among the actions, in order.
        package var events: [AppLifecycleEvent] { notices.map(\.event) }
    }

    /// The answer to one socket message: the reply to send (nil when the request has none),
    /// what to do, and what was wrong with the request, to log.
    package struct Received: Sendable, Hashable {
        package var reply: LifecycleMessage?
        package var output: Output
        package var error: AppLifecycleError?
    }

    package var configuration: Configuration
    package private(set) var state: AppLifecycleState = .active
    /// When the app last entered the background; nil outside it.
    package private(set) var backgroundSince: Double?
    package private(set) var openTasks: [BackgroundTask] = []
    /// Tasks still open when the background time ran out.
    package private(set) var leakedTaskCount = 0
    /// How many times the app was suspended (freeze confirmed).
    package private(set) var suspendedCount = 0
    /// Whether joule killed it (after SIGTERM, or over its CPU limit).
    package private(set) var killed = false
    /// Low Power Mode on, or the thermal state serious or worse: grace and budget are halved.
    package private(set) var constrained = false

    private var pending: (request: AppLifecycleRequest, since: Double)?
    private var warned = false
    /// When the freeze (or SIGSTOP) was asked for, until it is confirmed or given up.
    private var freezingSince: Double?
    /// The app stays running in the background: the freeze failed, or `suspends` is off.
    private var suspensionHeld = false
    private var terminatingSince: Double?
    private var killSent = false
    private var nextTaskId = 1
    private var lastTime = -Double.infinity

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: inputs

    /// A transition asked by the CLI, D-Bus or the session's lock and idle hints.
    package mutating func request(_ request: AppLifecycleRequest, at time: Double) -> Output {
        var actions = start(at: time)
        guard isRunning else { return finish(actions) }
        switch request {
        case .foreground:
            pending = nil
            comeForward(at: time, into: &actions)
        case .inactive:
            // Only an active app resigns: the session locking must not wake what is in the
            // background (iOS leaves background apps alone when the device locks).
            pending = nil
            if state == .active {
                state = .inactive
                notify(.willResignActive, at: time, into: &actions)
            }
        case .background, .suspend:
            if state.isForeground {
                guard debounced(request, at: time) else { return finish(actions) }
                pending = nil
                enterBackground(at: time, into: &actions)
                if request == .suspend { freeze(at: time, into: &actions) }
                evaluate(at: time, into: &actions)
            } else if request == .suspend, state == .background, freezingSince == nil {
                pending = nil
                freeze(at: time, into: &actions)
            }
        case .terminate:
            pending = nil
            if isFrozen { thaw(into: &actions) }
            actions.append(.sigterm)
            terminatingSince = time
        }
        return finish(actions)
    }

    /// Time passing: call at every deadline an output gave.
    package mutating func tick(at time: Double) -> Output {
        // Two statements: in `finish(start(at:))` the copy of self that `finish` reads is taken
        // before `start` mutates it.
        let actions = start(at: time)
        return finish(actions)
    }

    /// One message from the app's socket `connection`.
    package mutating func receive(_ message: LifecycleMessage, connection: Int, at time: Double) -> Received {
        var actions = start(at: time)
        var reply: LifecycleMessage?
        var error: AppLifecycleError?
        switch message {
        case .beginBackgroundTask(let name):
            if let refusal = taskRefusal(at: time) {
                error = refusal
                reply = .taskBegan(taskId: nil, remaining: 0)
            } else {
                let task = BackgroundTask(id: nextTaskId, name: name, connection: connection, began: time)
                nextTaskId += 1
                openTasks.append(task)
                notify(.backgroundTaskBegan, detail: Self.describe(task), at: time, into: &actions)
                reply = .taskBegan(taskId: task.id, remaining: backgroundTimeRemaining(at: time))
            }
        case .endBackgroundTask(let id):
            if let index = openTasks.firstIndex(where: { $0.id == id }) {
                let task = openTasks.remove(at: index)
                notify(.backgroundTaskEnded, detail: Self.describe(task), at: time, into: &actions)
                evaluate(at: time, into: &actions)
            } else {
                error = .unknownTaskId(id)
            }
        case .backgroundTimeRemaining:
            reply = .remaining(backgroundTimeRemaining(at: time))
        case .event, .taskBegan, .remaining:
            error = .notARequest
        }
        return Received(reply: reply, output: finish(actions), error: error)
    }

    /// The socket `connection` closed (the app ended it, or crashed): its tasks end.
    package mutating func connectionClosed(_ connection: Int, at time: Double) -> Output {
        var actions = start(at: time)
        let closing = openTasks.filter { $0.connection == connection }
        openTasks.removeAll { $0.connection == connection }
        for task in closing {
            notify(.backgroundTaskEnded, detail: Self.describe(task) + " ended: its socket closed", at: time, into: &actions)
        }
        if !closing.isEmpty { evaluate(at: time, into: &actions) }
        return finish(actions)
    }

    /// `cgroup.events` read `frozen 1` (or every process of the tree read stopped).
    package mutating func freezeConfirmed(at time: Double) -> Output {
        var actions = start(at: time)
        if freezingSince != nil, state == .background, terminatingSince == nil {
            freezingSince = nil
            state = .suspended
            suspendedCount += 1
            notify(.suspended, at: time, into: &actions)
        }
        return finish(actions)
    }

    /// Low Power Mode and the thermal state, whenever either changes.
    package mutating func conditions(lowPowerMode: Bool, thermalState: ThermalState, at time: Double) -> Output {
        var actions = start(at: time)
        constrained = lowPowerMode || thermalState >= .serious
        evaluate(at: time, into: &actions)
        return finish(actions)
    }

    /// Whether the CPU limit applies now: only while the app runs in the background.
    package var cpuLimitApplies: Bool { state == .background && terminatingSince == nil }

    /// The CPU monitor found the app over `configuration.cpuLimitPercent` over the window;
    /// ignored unless the limit applies.
    package mutating func cpuLimitExceeded(_ usage: WindowUsage, at time: Double) -> Output {
        var actions = start(at: time)
        guard cpuLimitApplies else { return finish(actions) }
        let report = AppLifecycleReport.cpuFatal(
            limitPercent: configuration.cpuLimitPercent, windowSeconds: configuration.cpuWindow.inSeconds, usage: usage)
        terminatingSince = time
        kill(detail: report.summary, at: time, into: &actions)
        actions.append(.report(report))
        return finish(actions)
    }

    /// The app's main process exited; `detail` says how (`status 0`, `signal 9`).
    package mutating func exited(detail: String?, at time: Double) -> Output {
        var actions = start(at: time)
        guard state != .terminated else { return finish(actions) }
        // Its tasks end with it, whichever the supervisor hears first: the exit or the socket.
        for task in openTasks {
            notify(.backgroundTaskEnded, detail: Self.describe(task) + " ended: the app exited", at: time, into: &actions)
        }
        state = .terminated
        openTasks = []
        pending = nil
        freezingSince = nil
        backgroundSince = nil
        notify(.exited, detail: detail, at: time, into: &actions)
        return finish(actions)
    }

    // MARK: reading

    /// Seconds until the app is suspended as things stand, as iOS's `backgroundTimeRemaining`:
    /// the rest of the budget while tasks are open, the rest of the grace period otherwise;
    /// 0 while it is being suspended or terminated; nil outside the background.
    package func backgroundTimeRemaining(at time: Double) -> Double? {
        guard state == .background, let end = suspensionTime else { return nil }
        if freezingSince != nil || terminatingSince != nil { return 0 }
        return max(0, end - time)
    }

    /// When the next deadline falls (see `Output.deadline`).
    package var nextDeadline: Double? {
        if state == .terminated { return nil }
        if let since = terminatingSince { return killSent ? nil : since + configuration.terminationGrace }
        var candidates: [Double] = []
        if let pending, pending.since + configuration.debounce > lastTime {
            candidates.append(pending.since + configuration.debounce)
        }
        if state == .background, let since = backgroundSince {
            if let freezing = freezingSince {
                candidates.append(freezing + configuration.freezeConfirmation)
            } else if !openTasks.isEmpty {
                let end = since + budget
                candidates.append(warned ? end : warningTime(end: end, since: since))
            } else if !suspensionHeld {
                candidates.append(since + grace)
            }
        }
        return candidates.min()
    }

    /// The grace period now in force (halved while constrained).
    package var grace: Duration { constrained ? configuration.grace / 2 : configuration.grace }
    /// The background budget now in force (halved while constrained).
    package var budget: Duration { constrained ? configuration.backgroundBudget / 2 : configuration.backgroundBudget }

    // MARK: rules

    /// A freeze (or SIGSTOP) was asked for and is not yet confirmed: the supervisor watches
    /// for `frozen 1` and calls `freezeConfirmed`.
    package var isAwaitingFreeze: Bool { freezingSince != nil }

    private var isRunning: Bool { state != .terminated && terminatingSince == nil }
    private var isFrozen: Bool { state == .suspended || freezingSince != nil }

    /// When the app will be suspended if nothing changes.
    private var suspensionTime: Double? {
        guard let since = backgroundSince else { return nil }
        return openTasks.isEmpty ? since + grace : since + budget
    }

    private func warningTime(end: Double, since: Double) -> Double { max(since, end - configuration.expiryWarning) }

    private mutating func start(at time: Double) -> [AppLifecycleAction] {
        lastTime = max(lastTime, time)
        var actions: [AppLifecycleAction] = []
        evaluate(at: time, into: &actions)
        return actions
    }

    private func finish(_ actions: [AppLifecycleAction]) -> Output { Output(actions: actions, deadline: nextDeadline) }

    /// Carries out whatever has fallen due by `time`.
    private mutating func evaluate(at time: Double, into actions: inout [AppLifecycleAction]) {
        if state == .terminated { return }
        if let since = terminatingSince {
            if !killSent, time >= since + configuration.terminationGrace {
                kill(detail: "still running \(ResourceReport.number(configuration.terminationGrace.inSeconds)) seconds after SIGTERM",
                     at: time, into: &actions)
            }
            return
        }
        guard state == .background, let since = backgroundSince else { return }
        if let freezing = freezingSince {
            if time >= freezing + configuration.freezeConfirmation {
                freezingSince = nil
                suspensionHeld = true
                thaw(into: &actions)
                actions.append(.report(.freezeNotConfirmed(waitedSeconds: configuration.freezeConfirmation.inSeconds)))
            }
            return
        }
        if !openTasks.isEmpty {
            let end = since + budget
            if !warned, time >= warningTime(end: end, since: since) {
                warned = true
                notify(.backgroundTimeWillExpire, deadline: end, at: time, into: &actions)
            }
            guard time >= end else { return }
            let leaked = openTasks
            openTasks = []
            leakedTaskCount += leaked.count
            for task in leaked {
                notify(.backgroundTaskEnded, detail: Self.describe(task) + " leaked: still open when the background time ran out",
                       at: time, into: &actions)
            }
        }
        guard time >= since + grace, !suspensionHeld else { return }
        if configuration.suspends {
            freeze(at: time, into: &actions)
        } else {
            suspensionHeld = true
        }
    }

    private mutating func debounced(_ request: AppLifecycleRequest, at time: Double) -> Bool {
        if configuration.debounce <= .zero { return true }
        if let pending, pending.request == request { return time >= pending.since + configuration.debounce }
        pending = (request, time)
        return false
    }

    private mutating func enterBackground(at time: Double, into actions: inout [AppLifecycleAction]) {
        if state == .active {
            state = .inactive
            notify(.willResignActive, at: time, into: &actions)
        }
        state = .background
        backgroundSince = time
        warned = false
        suspensionHeld = false
        notify(.didEnterBackground, deadline: suspensionTime, at: time, into: &actions)
    }

    /// Back to the foreground: thawed first if frozen, then `willEnterForeground` (inactive)
    /// and `didBecomeActive`.
    private mutating func comeForward(at time: Double, into actions: inout [AppLifecycleAction]) {
        if !state.isForeground {
            if isFrozen { thaw(into: &actions) }
            freezingSince = nil
            backgroundSince = nil
            state = .inactive
            notify(.willEnterForeground, at: time, into: &actions)
        }
        if state == .inactive {
            state = .active
            notify(.didBecomeActive, at: time, into: &actions)
        }
    }

    private mutating func freeze(at time: Double, into actions: inout [AppLifecycleAction]) {
        freezingSince = time
        actions.append(configuration.suspension == .cgroupFreezer ? .freeze : .stopTree)
    }

    private mutating func thaw(into actions: inout [AppLifecycleAction]) {
        if state == .suspended { state = .background }
        freezingSince = nil
        actions.append(configuration.suspension == .cgroupFreezer ? .thaw : .continueTree)
    }

    private mutating func kill(detail: String, at time: Double, into actions: inout [AppLifecycleAction]) {
        killSent = true
        killed = true
        actions.append(configuration.suspension == .cgroupFreezer ? .cgroupKill : .sigkill)
        notify(.killed, detail: detail, at: time, into: &actions)
    }

    private func taskRefusal(at time: Double) -> AppLifecycleError? {
        if !isRunning { return .terminated }
        switch state {
        case .active, .inactive: return nil
        case .background: return (backgroundTimeRemaining(at: time) ?? 0) > 0 ? nil : .noBackgroundTimeLeft
        case .suspended, .terminated: return .noBackgroundTimeLeft
        }
    }

    private func notify(
        _ event: AppLifecycleEvent, deadline: Double? = nil, detail: String? = nil, at time: Double,
        into actions: inout [AppLifecycleAction]
    ) {
        actions.append(.notify(AppLifecycleNotice(event: event, state: state, deadline: deadline, detail: detail, time: time)))
    }

    private static func describe(_ task: BackgroundTask) -> String {
        var text = ""
        JSONValue.writeString(task.name, to: &text)
        return text + " (task \(task.id))"
    }
}
