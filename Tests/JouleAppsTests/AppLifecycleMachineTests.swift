@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads
@testable import JouleApps
import Testing

/// The lifecycle rules of issue 14 on injected time: every input carries its instant.
@Suite struct AppLifecycleMachineTests {
    static let t0 = 1_700_000_000.0

    /// An app that was asked to go to the background twice, one second apart; returns the
    /// instant it entered the background.
    static func backgrounded(_ machine: inout AppLifecycleMachine, at time: Double = t0) -> Double {
        _ = machine.request(.background, at: time)
        _ = machine.request(.background, at: time + 1)
        return time + 1
    }

    /// A backgrounded app whose grace period ended and whose freeze was confirmed.
    static func suspended(_ machine: inout AppLifecycleMachine) -> Double {
        let since = backgrounded(&machine)
        _ = machine.tick(at: since + 5)
        _ = machine.freezeConfirmed(at: since + 5.2)
        return since + 5.2
    }

    static func begin(_ machine: inout AppLifecycleMachine, _ name: String, connection: Int = 1, at time: Double) -> AppLifecycleMachine.Received {
        machine.receive(.beginBackgroundTask(name: name), connection: connection, at: time)
    }

    @Test func activeToInactiveTellsTheAppItWillResignActive() {
        var machine = AppLifecycleMachine()
        let output = machine.request(.inactive, at: Self.t0)
        #expect(output.actions == [.notify(AppLifecycleNotice(event: .willResignActive, state: .inactive, time: Self.t0))])
        #expect(machine.state == .inactive)
        #expect(output.deadline == nil)
        #expect(machine.request(.inactive, at: Self.t0 + 1).actions.isEmpty)
    }

    @Test func backgroundIsTakenOnlyWhenSeenTwiceOneSecondApart() {
        var machine = AppLifecycleMachine()
        let first = machine.request(.background, at: Self.t0)
        #expect(first.actions.isEmpty)
        #expect(first.deadline == Self.t0 + 1)
        #expect(machine.state == .active)
        let tooSoon = machine.request(.background, at: Self.t0 + 0.5)
        #expect(tooSoon.actions.isEmpty)
        #expect(machine.state == .active)
        let second = machine.request(.background, at: Self.t0 + 1)
        #expect(second.events == [.willResignActive, .didEnterBackground])
        #expect(second.notices.map(\.state) == [.inactive, .background])
        #expect(machine.state == .background)
        #expect(machine.backgroundSince == Self.t0 + 1)
        // didEnterBackground carries the suspension: the end of the 5 s grace period.
        #expect(second.notices.last?.deadline == Self.t0 + 6)
        #expect(second.deadline == Self.t0 + 6)
    }

    @Test func anotherRequestBetweenSightingsStartsTheDebounceAgain() {
        var machine = AppLifecycleMachine()
        _ = machine.request(.background, at: Self.t0)
        _ = machine.request(.inactive, at: Self.t0 + 0.5)
        #expect(machine.request(.background, at: Self.t0 + 1).events.isEmpty)
        #expect(machine.state == .inactive)
        let confirmed = machine.request(.background, at: Self.t0 + 2)
        // From inactive there is nothing to resign.
        #expect(confirmed.events == [.didEnterBackground])
        #expect(machine.state == .background)
    }

    @Test func aSightingThatIsNeverRepeatedLeavesNoDeadlineBehind() {
        var machine = AppLifecycleMachine()
        _ = machine.request(.background, at: Self.t0)
        let later = machine.tick(at: Self.t0 + 1)
        #expect(later.actions.isEmpty)
        #expect(later.deadline == nil)
        #expect(machine.state == .active)
    }

    @Test func theGracePeriodWithoutTasksEndsInAConfirmedFreeze() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        #expect(machine.tick(at: since + 4.9).actions.isEmpty)
        let due = machine.tick(at: since + 5)
        #expect(due.actions == [.freeze])
        #expect(machine.state == .background)
        #expect(due.deadline == since + 15)
        #expect(machine.backgroundTimeRemaining(at: since + 5) == 0)
        let confirmed = machine.freezeConfirmed(at: since + 5.3)
        #expect(confirmed.actions == [.notify(AppLifecycleNotice(event: .suspended, state: .suspended, time: since + 5.3))])
        #expect(machine.state == .suspended)
        #expect(machine.suspendedCount == 1)
        #expect(confirmed.deadline == nil)
        #expect(machine.backgroundTimeRemaining(at: since + 6) == nil)
    }

    @Test func aFreezeNotConfirmedWithinTenSecondsIsThawedAndReported() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = machine.tick(at: since + 5)
        #expect(machine.tick(at: since + 14.9).actions.isEmpty)
        let given = machine.tick(at: since + 15)
        #expect(given.actions == [.thaw, .report(.freezeNotConfirmed(waitedSeconds: 10))])
        #expect(AppLifecycleReport.freezeNotConfirmed(waitedSeconds: 10).summary == "freeze not confirmed within 10 seconds; thawed")
        #expect(machine.state == .background)
        #expect(given.deadline == nil)
        // A confirmation that comes too late changes nothing, and nothing is frozen again by itself.
        #expect(machine.freezeConfirmed(at: since + 16).actions.isEmpty)
        #expect(machine.tick(at: since + 100).actions.isEmpty)
        #expect(machine.suspendedCount == 0)
        // An explicit suspend tries again.
        #expect(machine.request(.suspend, at: since + 101).actions == [.freeze])
    }

    @Test func anOpenTaskKeepsTheAppRunningUntilItEnds() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        let begun = Self.begin(&machine, "upload", at: since + 1)
        #expect(begun.reply == .taskBegan(taskId: 1, remaining: 29))
        #expect(begun.error == nil)
        #expect(begun.output.notices.map(\.detail) == ["\"upload\" (task 1)"])
        #expect(begun.output.events == [.backgroundTaskBegan])
        #expect(begun.output.deadline == since + 25)
        #expect(machine.tick(at: since + 5).actions.isEmpty)
        #expect(machine.tick(at: since + 12).actions.isEmpty)
        let ended = machine.receive(.endBackgroundTask(taskId: 1), connection: 1, at: since + 12)
        #expect(ended.reply == nil)
        #expect(ended.error == nil)
        #expect(ended.output.events == [.backgroundTaskEnded])
        #expect(ended.output.actions.last == .freeze)
        #expect(machine.leakedTaskCount == 0)
    }

    @Test func aTaskThatEndsWithinTheGracePeriodStillWaitsForItsEnd() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = Self.begin(&machine, "save", at: since + 1)
        let ended = machine.receive(.endBackgroundTask(taskId: 1), connection: 1, at: since + 2)
        #expect(!ended.output.actions.contains(.freeze))
        #expect(ended.output.deadline == since + 5)
        #expect(machine.tick(at: since + 5).actions == [.freeze])
    }

    @Test func theBudgetWarnsFiveSecondsEarlyThenSuspendsAndCountsTheLeak() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = Self.begin(&machine, "sync", at: since + 1)
        #expect(machine.tick(at: since + 24.9).actions.isEmpty)
        let warning = machine.tick(at: since + 25)
        #expect(warning.actions == [.notify(AppLifecycleNotice(
            event: .backgroundTimeWillExpire, state: .background, deadline: since + 30, time: since + 25))])
        #expect(warning.notices.first?.message == .event(.backgroundTimeWillExpire, state: .background, deadline: since + 30))
        #expect(warning.deadline == since + 30)
        #expect(machine.backgroundTimeRemaining(at: since + 27) == 3)
        let end = machine.tick(at: since + 30)
        #expect(end.events == [.backgroundTaskEnded])
        #expect(end.notices.first?.detail == "\"sync\" (task 1) leaked: still open when the background time ran out")
        #expect(end.actions.last == .freeze)
        #expect(machine.leakedTaskCount == 1)
        #expect(machine.openTasks.isEmpty)
        // The app's late endBackgroundTask names a task that is no longer open.
        let late = machine.receive(.endBackgroundTask(taskId: 1), connection: 1, at: since + 31)
        #expect(late.error == .unknownTaskId(1))
        #expect(late.output.actions.isEmpty)
    }

    @Test func anUnknownTaskIdIsRefusedWithItsNumber() {
        var machine = AppLifecycleMachine()
        let received = machine.receive(.endBackgroundTask(taskId: 42), connection: 1, at: Self.t0)
        #expect(received.error == .unknownTaskId(42))
        #expect(received.error?.description == "unknown task id 42: no open background task has it")
        #expect(received.reply == nil)
    }

    @Test func lowPowerModeHalvesGraceAndBudget() {
        var machine = AppLifecycleMachine()
        _ = machine.conditions(lowPowerMode: true, thermalState: .nominal, at: Self.t0 - 10)
        #expect(machine.grace == .seconds(2.5))
        #expect(machine.budget == .seconds(15))
        let since = Self.backgrounded(&machine)
        #expect(machine.nextDeadline == since + 2.5)
        _ = Self.begin(&machine, "task", at: since + 1)
        #expect(machine.tick(at: since + 9.9).actions.isEmpty)
        #expect(machine.tick(at: since + 10).events == [.backgroundTimeWillExpire])
        #expect(machine.tick(at: since + 15).actions.last == .freeze)
    }

    @Test func aSeriousThermalStateHalvesTheGracePeriodAndFairDoesNot() {
        var fair = AppLifecycleMachine()
        _ = fair.conditions(lowPowerMode: false, thermalState: .fair, at: Self.t0 - 10)
        let fairSince = Self.backgrounded(&fair)
        #expect(fair.tick(at: fairSince + 2.5).actions.isEmpty)

        var serious = AppLifecycleMachine()
        _ = serious.conditions(lowPowerMode: false, thermalState: .serious, at: Self.t0 - 10)
        let since = Self.backgrounded(&serious)
        #expect(serious.tick(at: since + 2.4).actions.isEmpty)
        #expect(serious.tick(at: since + 2.5).actions == [.freeze])
    }

    @Test func conditionsChangingInTheBackgroundCountFromEnteringIt() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = Self.begin(&machine, "long", at: since + 1)
        // At 16 s the halved budget (15 s) is already spent: warning, leak and freeze at once.
        let hot = machine.conditions(lowPowerMode: false, thermalState: .critical, at: since + 16)
        #expect(hot.events == [.backgroundTimeWillExpire, .backgroundTaskEnded])
        #expect(hot.notices.first?.deadline == since + 15)
        #expect(hot.actions.last == .freeze)
        #expect(machine.leakedTaskCount == 1)
    }

    @Test func coolingDownRestoresTheFullBudget() {
        var machine = AppLifecycleMachine()
        _ = machine.conditions(lowPowerMode: true, thermalState: .nominal, at: Self.t0 - 10)
        let since = Self.backgrounded(&machine)
        _ = Self.begin(&machine, "t", at: since + 1)
        #expect(machine.nextDeadline == since + 10)
        _ = machine.conditions(lowPowerMode: false, thermalState: .nominal, at: since + 5)
        #expect(machine.nextDeadline == since + 25)
    }

    @Test func foregroundFromSuspendedThawsBeforeTheAppHearsAnything() {
        var machine = AppLifecycleMachine()
        let at = Self.suspended(&machine) + 1
        let output = machine.request(.foreground, at: at)
        #expect(output.actions == [
            .thaw,
            .notify(AppLifecycleNotice(event: .willEnterForeground, state: .inactive, time: at)),
            .notify(AppLifecycleNotice(event: .didBecomeActive, state: .active, time: at)),
        ])
        #expect(machine.state == .active)
        #expect(machine.backgroundSince == nil)
        #expect(machine.backgroundTimeRemaining(at: at) == nil)
        #expect(output.deadline == nil)
    }

    @Test func foregroundFromARunningBackgroundHasNothingToThaw() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        let output = machine.request(.foreground, at: since + 2)
        #expect(output.actions.count == 2)
        #expect(output.events == [.willEnterForeground, .didBecomeActive])
        // The grace period is forgotten: nothing is frozen later.
        #expect(machine.tick(at: since + 10).actions.isEmpty)
    }

    @Test func foregroundWhileTheFreezeIsUnconfirmedThawsToo() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = machine.tick(at: since + 5)
        let output = machine.request(.foreground, at: since + 6)
        #expect(output.actions.first == .thaw)
        #expect(output.events == [.willEnterForeground, .didBecomeActive])
        #expect(machine.freezeConfirmed(at: since + 7).actions.isEmpty)
        #expect(machine.state == .active)
    }

    @Test func inactiveLeavesABackgroundAppWhereItIs() {
        // The session locking makes every app inactive; that must not wake suspended ones.
        var machine = AppLifecycleMachine()
        let at = Self.suspended(&machine) + 1
        #expect(machine.request(.inactive, at: at).actions.isEmpty)
        #expect(machine.state == .suspended)
        var running = AppLifecycleMachine()
        let since = Self.backgrounded(&running)
        #expect(running.request(.inactive, at: since + 1).actions.isEmpty)
        #expect(running.tick(at: since + 5).actions == [.freeze])
    }

    @Test func inactiveThenForegroundOnlyBecomesActive() {
        var machine = AppLifecycleMachine()
        _ = machine.request(.inactive, at: Self.t0)
        #expect(machine.request(.foreground, at: Self.t0 + 1).actions
            == [.notify(AppLifecycleNotice(event: .didBecomeActive, state: .active, time: Self.t0 + 1))])
    }

    @Test func terminateThawsFirstThenSigtermThenKillsAfterFiveSeconds() {
        var machine = AppLifecycleMachine()
        let at = Self.suspended(&machine) + 1
        let asked = machine.request(.terminate, at: at)
        #expect(asked.actions == [.thaw, .sigterm])
        #expect(asked.deadline == at + 5)
        #expect(machine.tick(at: at + 4.9).actions.isEmpty)
        let killed = machine.tick(at: at + 5)
        #expect(killed.actions == [
            .cgroupKill,
            .notify(AppLifecycleNotice(event: .killed, state: .background, detail: "still running 5 seconds after SIGTERM", time: at + 5)),
        ])
        #expect(machine.killed)
        #expect(killed.deadline == nil)
        let exited = machine.exited(detail: "signal 9", at: at + 5.1)
        #expect(exited.actions == [.notify(AppLifecycleNotice(event: .exited, state: .terminated, detail: "signal 9", time: at + 5.1))])
        #expect(machine.state == .terminated)
        #expect(machine.nextDeadline == nil)
    }

    @Test func anAppThatExitsOnSigtermIsNotKilled() {
        var machine = AppLifecycleMachine()
        #expect(machine.request(.terminate, at: Self.t0).actions == [.sigterm])
        #expect(machine.exited(detail: "status 0", at: Self.t0 + 1).events == [.exited])
        #expect(machine.tick(at: Self.t0 + 5).actions.isEmpty)
        #expect(!machine.killed)
        // Nothing more is asked of a terminated app.
        #expect(machine.request(.foreground, at: Self.t0 + 6).actions.isEmpty)
        #expect(machine.request(.background, at: Self.t0 + 7).deadline == nil)
        #expect(Self.begin(&machine, "x", at: Self.t0 + 8).error == .terminated)
    }

    @Test func requestsWhileTerminatingAreIgnored() {
        var machine = AppLifecycleMachine()
        _ = machine.request(.terminate, at: Self.t0)
        #expect(machine.request(.foreground, at: Self.t0 + 1).actions.isEmpty)
        #expect(machine.request(.terminate, at: Self.t0 + 2).actions.isEmpty)
        #expect(machine.nextDeadline == Self.t0 + 5)
    }

    @Test func withoutACgroupTheTreeIsStoppedContinuedAndSigkilled() {
        var configuration = AppLifecycleMachine.Configuration()
        configuration.suspension = .stopSignals
        var machine = AppLifecycleMachine(configuration: configuration)
        let since = Self.backgrounded(&machine)
        #expect(machine.tick(at: since + 5).actions == [.stopTree])
        _ = machine.freezeConfirmed(at: since + 5.1)
        #expect(machine.request(.foreground, at: since + 6).actions.first == .continueTree)
        _ = machine.request(.terminate, at: since + 7)
        #expect(machine.tick(at: since + 12).actions.first == .sigkill)
    }

    @Test func aClosedSocketEndsOnlyItsOwnTasksAndNoneLeak() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        #expect(Self.begin(&machine, "a", connection: 7, at: since + 1).reply == .taskBegan(taskId: 1, remaining: 29))
        #expect(Self.begin(&machine, "b", connection: 8, at: since + 2).reply == .taskBegan(taskId: 2, remaining: 28))
        let closed = machine.connectionClosed(7, at: since + 6)
        #expect(closed.notices.map(\.detail) == ["\"a\" (task 1) ended: its socket closed"])
        #expect(!closed.actions.contains(.freeze))
        #expect(machine.openTasks.map(\.id) == [2])
        let crashed = machine.connectionClosed(8, at: since + 7)
        #expect(crashed.events == [.backgroundTaskEnded])
        #expect(crashed.actions.last == .freeze)
        #expect(machine.leakedTaskCount == 0)
        #expect(machine.connectionClosed(9, at: since + 8).actions.isEmpty)
    }

    @Test func tasksBegunInTheForegroundCarryIntoTheBackground() {
        var machine = AppLifecycleMachine()
        let begun = Self.begin(&machine, "export", at: Self.t0 - 5)
        #expect(begun.reply == .taskBegan(taskId: 1, remaining: nil))
        let since = Self.backgrounded(&machine)
        #expect(machine.nextDeadline == since + 25)
        #expect(machine.backgroundTimeRemaining(at: since) == 30)
        #expect(machine.tick(at: since + 5).actions.isEmpty)
    }

    @Test func theCPULimitAppliesOnlyInTheBackground() {
        let usage = WindowUsage(cpuSeconds: 53.4, observedSeconds: 60)
        var machine = AppLifecycleMachine()
        #expect(!machine.cpuLimitApplies)
        #expect(machine.cpuLimitExceeded(usage, at: Self.t0).actions.isEmpty)
        _ = machine.request(.inactive, at: Self.t0 + 0.5)
        #expect(machine.cpuLimitExceeded(usage, at: Self.t0 + 0.6).actions.isEmpty)
        #expect(!machine.killed)
        let since = Self.backgrounded(&machine, at: Self.t0 + 1)
        #expect(machine.cpuLimitApplies)
        let output = machine.cpuLimitExceeded(usage, at: since + 2)
        let detail = "CPU_FATAL (Limit 80%) Observed 89% over 60 seconds"
        #expect(output.actions == [
            .cgroupKill,
            .notify(AppLifecycleNotice(event: .killed, state: .background, detail: detail, time: since + 2)),
            .report(.cpuFatal(limitPercent: 80, windowSeconds: 60, usage: usage)),
        ])
        #expect(machine.killed)
        #expect(!machine.cpuLimitApplies)
        #expect(output.deadline == nil)
    }

    @Test func aSuspendedAppIsNotKilledForCPU() {
        var machine = AppLifecycleMachine()
        let at = Self.suspended(&machine)
        #expect(machine.cpuLimitExceeded(WindowUsage(cpuSeconds: 59, observedSeconds: 60), at: at + 1).actions.isEmpty)
        #expect(!machine.killed)
    }

    @Test func backgroundTimeRemainingIsNullOutsideTheBackground() {
        var machine = AppLifecycleMachine()
        #expect(machine.receive(.backgroundTimeRemaining, connection: 1, at: Self.t0).reply == .remaining(nil))
        let since = Self.backgrounded(&machine)
        #expect(machine.receive(.backgroundTimeRemaining, connection: 1, at: since + 2).reply == .remaining(3))
        #expect(machine.backgroundTimeRemaining(at: since + 9) == 0)
    }

    @Test func noTaskBeginsWhileTheAppIsBeingSuspended() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = machine.tick(at: since + 5)
        let refused = Self.begin(&machine, "late", at: since + 5.5)
        #expect(refused.reply == .taskBegan(taskId: nil, remaining: 0))
        #expect(refused.error == .noBackgroundTimeLeft)
        #expect(refused.output.actions.isEmpty)
        #expect(machine.openTasks.isEmpty)
    }

    @Test func withSuspensionOffTheAppKeepsRunningUntilAskedToSuspend() {
        var configuration = AppLifecycleMachine.Configuration()
        configuration.suspends = false
        var machine = AppLifecycleMachine(configuration: configuration)
        let since = Self.backgrounded(&machine)
        #expect(machine.tick(at: since + 5).actions.isEmpty)
        #expect(machine.nextDeadline == nil)
        #expect(machine.state == .background)
        #expect(machine.request(.suspend, at: since + 60).actions == [.freeze])
    }

    @Test func suspendFromTheForegroundIsDebouncedThenFreezesAtOnce() {
        var machine = AppLifecycleMachine()
        #expect(machine.request(.suspend, at: Self.t0).actions.isEmpty)
        let output = machine.request(.suspend, at: Self.t0 + 1)
        #expect(output.events == [.willResignActive, .didEnterBackground])
        #expect(output.actions.last == .freeze)
        #expect(machine.freezeConfirmed(at: Self.t0 + 1.1).events == [.suspended])
        #expect(machine.request(.suspend, at: Self.t0 + 2).actions.isEmpty)
    }

    @Test func aZeroDebounceTakesTheFirstSighting() {
        var configuration = AppLifecycleMachine.Configuration()
        configuration.debounce = .zero
        var machine = AppLifecycleMachine(configuration: configuration)
        #expect(machine.request(.background, at: Self.t0).events == [.willResignActive, .didEnterBackground])
    }

    @Test func anAppThatCrashesInTheBackgroundExitsWithItsTasksClosed() {
        var machine = AppLifecycleMachine()
        let since = Self.backgrounded(&machine)
        _ = Self.begin(&machine, "work", at: since + 1)
        let exited = machine.exited(detail: "signal 11", at: since + 2)
        #expect(exited.events == [.backgroundTaskEnded, .exited])
        #expect(exited.notices.first?.detail?.hasSuffix("ended: the app exited") == true)
        #expect(machine.openTasks.isEmpty)
        #expect(machine.leakedTaskCount == 0)
        #expect(machine.backgroundSince == nil)
        #expect(exited.deadline == nil)
    }

    @Test func messagesOnlyJouleSendsAreRefusedFromTheApp() {
        var machine = AppLifecycleMachine()
        let received = machine.receive(.remaining(3), connection: 1, at: Self.t0)
        #expect(received.error == .notARequest)
        #expect(received.reply == nil)
    }

    @Test func onlyTheLifecycleCallbacksReachTheApp() {
        #expect(AppLifecycleEvent.allCases.filter(\.isSentToApp) == [
            .willResignActive, .didEnterBackground, .backgroundTimeWillExpire, .willEnterForeground, .didBecomeActive,
        ])
        #expect(AppLifecycleNotice(event: .suspended, state: .suspended, time: 0).message == nil)
        #expect(AppLifecycleEvent.allCases.map(\.name) == [
            "willResignActive", "didEnterBackground", "backgroundTaskBegan", "backgroundTaskEnded", "backgroundTimeWillExpire",
            "suspended", "willEnterForeground", "didBecomeActive", "killed", "exited",
        ])
        #expect(AppLifecycleState.allCases.map(\.name) == ["active", "inactive", "background", "suspended", "terminated"])
    }
}
