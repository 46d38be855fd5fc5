@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Foundation
import Testing

/// Selectors resolved from a table the test edits.
final class TableResolver: WorkloadResolver {
    private let table = Locked<[String: WorkloadResolution]>([:])
    private let dead = Locked<Set<ProcessIdentity>>([])

    func set(_ className: String, _ targets: [PauseTarget], protected: [ProtectedTarget] = []) {
        table.withLock { $0[className] = WorkloadResolution(targets: targets, protected: protected) }
    }

    func kill(_ identity: ProcessIdentity) { dead.withLock { _ = $0.insert(identity) } }

    func resolve(_ workloadClass: WorkloadClass) -> WorkloadResolution {
        table.withLock { $0[workloadClass.name] ?? WorkloadResolution() }
    }

    func isAlive(_ identity: ProcessIdentity) -> Bool { !dead.withLock { $0.contains(identity) } }
}

@Suite struct EnforcerTests {
    static func process(_ pid: Int32, _ name: String = "worker") -> PauseTarget {
        .process(ProcessIdentity(pid: pid, startTimeTicks: UInt64(pid) * 10), name: name)
    }

    static let policy = EnforcePolicy(classes: [
        WorkloadClass(name: "background", level: .deferrable, selectors: [.process("worker")]),
        WorkloadClass(name: "reports", level: .optional, selectors: [.pidFile("/run/r.pid")]),
        WorkloadClass(name: "builds", level: .normal, selectors: [.cgroup("/build.slice")]),
    ])

    static func make(
        journal: PauseJournal? = nil, owner: ProcessIdentity? = nil, dryRun: Bool = false
    ) -> (Enforcer<RecordingProcessController>, RecordingProcessController, TableResolver) {
        let resolver = TableResolver()
        resolver.set("background", [process(100), process(101)])
        resolver.set("reports", [process(200)])
        resolver.set("builds", [.cgroup("/build.slice")])
        let controller = RecordingProcessController(journalPath: journal?.path)
        let enforcer = Enforcer(
            policy: policy, resolver: resolver, controller: controller, journal: journal, owner: owner,
            clock: ManualClock(now: 1_000), dryRun: dryRun)
        return (enforcer, controller, resolver)
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-enforce-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func classesPauseAsHeatRisesAndResumeAsItFalls() async {
        let (enforcer, controller, _) = Self.make()
        #expect(await enforcer.update(lowPowerMode: false, thermalState: .nominal).isEmpty)
        #expect(controller.calls.isEmpty)

        let fair = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        #expect(fair.map(\.className) == ["background"])
        #expect(fair.first?.reason == "thermal:fair")
        #expect(fair.first?.targets.map(\.result) == [.stopped, .stopped])
        #expect(controller.calls == [.open(100), .stop(100), .open(101), .stop(101)])

        let serious = await enforcer.update(lowPowerMode: false, thermalState: .serious)
        #expect(serious.map(\.className) == ["reports"])
        let critical = await enforcer.update(lowPowerMode: false, thermalState: .critical)
        #expect(critical.map(\.className) == ["builds"])
        #expect(critical.first?.targets.first?.result == .frozen)
        #expect(await enforcer.pausedClasses == ["background", "reports", "builds"])

        let fairAgain = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        #expect(fairAgain.map(\.kind) == [.resume, .resume])
        #expect(fairAgain.map(\.className) == ["reports", "builds"])
        #expect(fairAgain.allSatisfy { $0.reason == "recovered" })
        let nominal = await enforcer.update(lowPowerMode: false, thermalState: .nominal)
        #expect(nominal.map(\.className) == ["background"])
        #expect(nominal.first?.targets.map(\.result) == [.continued, .continued])
        #expect(controller.calls.suffix(7) == [
            .resume(200), .close(200), .thaw("/build.slice"), .resume(100), .close(100), .resume(101), .close(101),
        ])
        #expect(await enforcer.heldTargets.isEmpty)
    }

    @Test func lowPowerModePausesOnlyDeferrableWork() async {
        let (enforcer, controller, _) = Self.make()
        let on = await enforcer.update(lowPowerMode: true, thermalState: .nominal)
        #expect(on.map(\.className) == ["background"])
        #expect(on.first?.reason == "lowPowerMode")
        #expect(on.first?.lowPowerMode == true && on.first?.thermalState == .nominal)
        // Heat adds to the cause without a new line for the class already paused.
        #expect(await enforcer.update(lowPowerMode: true, thermalState: .fair).isEmpty)
        // Low Power Mode off, still fair: stays paused.
        #expect(await enforcer.update(lowPowerMode: false, thermalState: .fair).isEmpty)
        let off = await enforcer.update(lowPowerMode: false, thermalState: .nominal)
        #expect(off.map(\.kind) == [.resume])
        #expect(controller.calls.filter { if case .stop = $0 { true } else { false } }.count == 2)
    }

    @Test func aTargetOfTwoClassesResumesOnlyWhenNeitherWantsItPaused() async {
        let (enforcer, controller, resolver) = Self.make()
        resolver.set("reports", [Self.process(101), Self.process(200)])
        _ = await enforcer.update(lowPowerMode: false, thermalState: .serious)
        // 101 was stopped once, for background, and is shared with reports.
        #expect(controller.calls.filter { $0 == .stop(101) }.count == 1)
        let fair = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        let outcome = fair.first?.targets.first { $0.target == Self.process(101) }
        #expect(outcome?.result == .heldByOtherClass)
        #expect(!controller.calls.contains(.resume(101)))
        _ = await enforcer.update(lowPowerMode: false, thermalState: .nominal)
        #expect(controller.calls.contains(.resume(101)))
    }

    @Test func rescanPausesNewMatchesAndForgetsExitedOnes() async {
        let (enforcer, controller, resolver) = Self.make()
        _ = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        #expect(await enforcer.rescan().isEmpty)
        resolver.set("background", [Self.process(100), Self.process(101), Self.process(102)])
        let rescan = await enforcer.rescan()
        #expect(rescan.count == 1)
        #expect(rescan.first?.reason == "rescan")
        #expect(rescan.first?.targets.map(\.target) == [Self.process(102)])
        #expect(controller.calls.last == .stop(102))

        // 100 exits; a new process reuses PID 100 with another start time and is matched.
        resolver.kill(ProcessIdentity(pid: 100, startTimeTicks: 1_000))
        let reused = PauseTarget.process(ProcessIdentity(pid: 100, startTimeTicks: 5), name: "worker")
        resolver.set("background", [reused, Self.process(101), Self.process(102)])
        let next = await enforcer.rescan()
        #expect(next.first?.targets.map(\.target) == [reused])
        let held = await enforcer.heldTargets
        #expect(held.contains(reused) && !held.contains(Self.process(100)))
    }

    @Test func rescanFreezesAgainACgroupFoundThawed() async {
        let (enforcer, controller, _) = Self.make()
        _ = await enforcer.update(lowPowerMode: false, thermalState: .critical)
        #expect(await enforcer.rescan().isEmpty)
        controller.thawedElsewhere.withLock { _ = $0.insert("/build.slice") }
        let actions = await enforcer.rescan()
        #expect(actions.map(\.className) == ["builds"])
        #expect(actions.first?.reason == "rescan")
        #expect(actions.first?.targets.map(\.result) == [.frozen])
        #expect(controller.calls.filter { $0 == .freeze("/build.slice") }.count == 2)
    }

    @Test func resumeAllLeavesNothingPaused() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PauseJournal(directory: directory)
        let (enforcer, controller, _) = Self.make(journal: journal)
        _ = await enforcer.update(lowPowerMode: true, thermalState: .critical)
        #expect(FileManager.default.fileExists(atPath: journal.path))
        let actions = await enforcer.resumeAll(reason: "signal:SIGTERM")
        #expect(actions.map(\.className) == ["background", "reports", "builds"])
        #expect(actions.allSatisfy { $0.kind == .resume && $0.reason == "signal:SIGTERM" })
        #expect(await enforcer.heldTargets.isEmpty)
        #expect(await enforcer.pausedClasses.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
        for pid: Int32 in [100, 101, 200] { #expect(controller.calls.contains(.resume(pid))) }
        #expect(controller.calls.contains(.thaw("/build.slice")))
    }

    @Test func theJournalNamesEachTargetBeforeItIsPaused() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PauseJournal(directory: directory)
        let owner = ProcessIdentity(pid: 4242, startTimeTicks: 7)
        let (enforcer, controller, _) = Self.make(journal: journal, owner: owner)
        _ = await enforcer.update(lowPowerMode: false, thermalState: .critical)
        let snapshots = controller.journalAtPause
        #expect(snapshots.count == 4)
        for (index, text) in snapshots.enumerated() {
            let contents = try PauseJournal.decode(try #require(text), path: journal.path)
            #expect(contents.owner == owner)
            let expected: PauseTarget = [Self.process(100), Self.process(101), Self.process(200), .cgroup("/build.slice")][index]
            #expect(contents.entries.map(\.target).contains(expected))
        }
        let final = try #require(try journal.load())
        #expect(final.entries.map(\.classes) == [["background"], ["background"], ["reports"], ["builds"]])
    }

    @Test func recoveryResumesWhatAKilledRunLeftAndRemovesTheJournal() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PauseJournal(directory: directory)
        let killed = ProcessIdentity(pid: 999_999, startTimeTicks: 1)
        try journal.save(PauseJournal.Contents(owner: killed, entries: [
            .init(target: Self.process(300, "ffmpeg"), classes: ["background"]),
            .init(target: .cgroup("/old.slice"), classes: ["gone-class"]),
        ]))
        let (enforcer, controller, resolver) = Self.make(journal: journal, owner: ProcessIdentity(pid: 1, startTimeTicks: 1))
        resolver.kill(killed)
        let actions = try await enforcer.recoverJournal()
        #expect(actions.map(\.className) == ["background", "gone-class"])
        #expect(actions.map(\.level) == [.deferrable, nil])
        #expect(actions.allSatisfy { $0.kind == .resume && $0.reason == "journal" })
        #expect(controller.calls == [.open(300), .resume(300), .close(300), .thaw("/old.slice")])
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    @Test func recoveryRefusesWhileTheOwnerRuns() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PauseJournal(directory: directory)
        let running = ProcessIdentity(pid: 777, startTimeTicks: 3)
        try journal.save(PauseJournal.Contents(owner: running, entries: [.init(target: Self.process(300), classes: ["a"])]))
        let (enforcer, controller, _) = Self.make(journal: journal, owner: ProcessIdentity(pid: 778, startTimeTicks: 4))
        await #expect(throws: EnforcerError.anotherRunIsActive(pid: 777, journal: journal.path)) {
            try await enforcer.recoverJournal()
        }
        #expect(controller.calls.isEmpty)
        #expect(FileManager.default.fileExists(atPath: journal.path))
        // A dry run beside the live run neither fails nor touches its journal.
        let (dry, dryController, _) = Self.make(journal: journal, owner: ProcessIdentity(pid: 779, startTimeTicks: 4), dryRun: true)
        #expect(try await dry.recoverJournal().isEmpty)
        #expect(dryController.calls.isEmpty)
        #expect(FileManager.default.fileExists(atPath: journal.path))
    }

    @Test func workThatCannotBeJournaledIsNotPaused() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The journal's directory is a file: every write fails.
        try "".write(toFile: directory + "/state", atomically: true, encoding: .utf8)
        let warnings = Locked<[String]>([])
        let resolver = TableResolver()
        resolver.set("background", [Self.process(100)])
        let controller = RecordingProcessController()
        let enforcer = Enforcer(
            policy: Self.policy, resolver: resolver, controller: controller, journal: PauseJournal(directory: directory + "/state"),
            owner: nil, clock: ManualClock(now: 1), warn: { message in warnings.withLock { $0.append(message) } })
        let actions = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        #expect(actions.first?.targets.map(\.result) == [.failed])
        #expect(actions.first?.targets.first?.detail == "not paused: the pause journal cannot be written")
        #expect(controller.calls.isEmpty)
        #expect(await enforcer.heldTargets.isEmpty)
        #expect(warnings.withLock { $0.count } == 1)
    }

    @Test func dryRunDecidesButNeverActs() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = PauseJournal(directory: directory)
        let (enforcer, controller, _) = Self.make(journal: journal, dryRun: true)
        let pause = await enforcer.update(lowPowerMode: true, thermalState: .critical)
        #expect(pause.count == 3)
        #expect(pause.allSatisfy { $0.dryRun && $0.targets.allSatisfy { $0.result == .wouldPause } })
        let resume = await enforcer.update(lowPowerMode: false, thermalState: .nominal)
        #expect(resume.allSatisfy { $0.targets.allSatisfy { $0.result == .wouldResume } })
        #expect(controller.calls.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }

    @Test func protectedMatchesAreReportedAndNeverTouched() async {
        let (enforcer, controller, resolver) = Self.make()
        resolver.set("background", [Self.process(100)], protected: [
            ProtectedTarget(target: Self.process(1, "systemd"), reason: .initProcess)
        ])
        let actions = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        let outcomes = actions.first?.targets ?? []
        #expect(outcomes.map(\.result) == [.stopped, .protected])
        #expect(outcomes.last?.detail == "pid 1 is never paused")
        #expect(!controller.calls.contains(.stop(1)))
    }

    @Test func aProcessGoneBeforeItCouldBeStoppedIsNotHeld() async {
        let (enforcer, controller, _) = Self.make()
        controller.gone.withLock { _ = $0.insert(101) }
        let actions = await enforcer.update(lowPowerMode: false, thermalState: .fair)
        #expect(actions.first?.targets.map(\.result) == [.stopped, .gone])
        #expect(await enforcer.heldTargets == [Self.process(100)])
    }

    @Test func actionLinesFollowTheContract() {
        let action = EnforcementAction(
            timestamp: 1_700_000_000.1234, kind: .pause, className: "background", level: .deferrable,
            reason: "thermal:fair", lowPowerMode: false, thermalState: .fair, dryRun: false,
            targets: [
                TargetOutcome(target: Self.process(100, "ffmpeg"), result: .stopped),
                TargetOutcome(target: .cgroup("/system.slice/b.service"), result: .failed, detail: "open: EACCES"),
            ])
        #expect(JSONValue.object(action.json).serialized == """
            {"timestamp":1700000000.123,"action":"pause","class":"background","level":"deferrable","reason":"thermal:fair",\
            "lowPowerMode":false,"thermalState":"fair","dryRun":false,"targets":[\
            {"kind":"process","pid":100,"name":"ffmpeg","result":"stopped","detail":null},\
            {"kind":"cgroup","cgroup":"/system.slice/b.service","result":"failed","detail":"open: EACCES"}]}
            """)
        #expect(action.text == "pause background (thermal:fair): ffmpeg [100] stopped, cgroup /system.slice/b.service failed (open: EACCES)")
    }

    @Test func theJournalRoundTripsAndRejectsGarbage() throws {
        let contents = PauseJournal.Contents(
            owner: ProcessIdentity(pid: 12, startTimeTicks: 18_446_744_073_709_551_615),
            entries: [
                .init(target: .process(ProcessIdentity(pid: 5, startTimeTicks: 99), name: "a \"quoted\" name"), classes: ["x", "y"]),
                .init(target: .cgroup("/system.slice/b.service"), classes: ["z"]),
            ])
        let text = PauseJournal.encode(contents)
        #expect(try PauseJournal.decode(text, path: "j") == contents)
        for garbage in ["", "[]", "{\"version\":2,\"paused\":[]}", "{\"version\":1}",
                        "{\"version\":1,\"paused\":[{\"kind\":\"process\",\"pid\":-1,\"startTime\":\"1\"}]}",
                        "{\"version\":1,\"paused\":[{\"kind\":\"cgroup\",\"cgroup\":\"/\"}]}",
                        "{\"version\":1,\"paused\":[{\"kind\":\"thread\"}]}", "{\"version\":1,\"paused\":[{"] {
            #expect(throws: HardwareError.self, "accepted \(garbage)") { try PauseJournal.decode(garbage, path: "j") }
        }
    }
}

/// The safety rules for processes and cgroups.
@Suite struct SafetyRulesTests {
    static let me = SafetyRules(
        pid: 500, ancestors: [400, 300], uid: 1000, isRoot: false,
        ownCgroups: ["/user.slice/user-1000.slice/session-1.scope"], initCgroup: "/init.scope")

    @Test func processRules() {
        #expect(Self.me.protection(pid: 1, ppid: 0, isKernelThread: false, uid: 0) == .initProcess)
        #expect(Self.me.protection(pid: 500, ppid: 400, isKernelThread: false, uid: 1000) == .jouleItself)
        #expect(Self.me.protection(pid: 400, ppid: 300, isKernelThread: false, uid: 1000) == .jouleParent)
        #expect(Self.me.protection(pid: 300, ppid: 1, isKernelThread: false, uid: 1000) == .jouleAncestor)
        #expect(Self.me.protection(pid: 2, ppid: 0, isKernelThread: false, uid: 0) == .kernelThread)
        #expect(Self.me.protection(pid: 77, ppid: 2, isKernelThread: false, uid: 0) == .kernelThread)
        #expect(Self.me.protection(pid: 78, ppid: 5, isKernelThread: true, uid: 1000) == .kernelThread)
        #expect(Self.me.protection(pid: 600, ppid: 1, isKernelThread: false, uid: 1001) == .otherUser)
        #expect(Self.me.protection(pid: 600, ppid: 1, isKernelThread: false, uid: nil) == .otherUser)
        #expect(Self.me.protection(pid: 600, ppid: 400, isKernelThread: false, uid: 1000) == nil)
        var root = Self.me
        root.isRoot = true
        #expect(root.protection(pid: 600, ppid: 1, isKernelThread: false, uid: 1001) == nil)
        #expect(root.protection(pid: 1, ppid: 0, isKernelThread: false, uid: 0) == .initProcess)
    }

    @Test func everyEngineWordsTheSameRules() {
        #expect(Protection.jouleParent.monitorDescription == "the monitor's parent is never touched")
        #expect(Protection.jouleAncestor.monitorDescription == "the monitor's ancestors are never touched")
        #expect(Protection.jouleAncestor.pauseDescription == "joule enforce never pauses its parent or ancestors")
        #expect(Protection.initProcess.pauseDescription == "pid 1 is never paused")
        #expect(Protection.initProcess.monitorDescription == "pid 1 (init) is never touched")
        #expect(Self.me.protection(holding: "/") == .containsJoule)
        #expect(Self.me.protection(holding: "/system.slice") == nil)
    }

    @Test func cgroupRules() {
        #expect(Self.me.protection(cgroup: "/user.slice", owner: 1000) == .containsJoule)
        #expect(Self.me.protection(cgroup: "/user.slice/user-1000.slice/session-1.scope", owner: 1000) == .containsJoule)
        #expect(Self.me.protection(cgroup: "/init.scope", owner: 1000) == .containsInit)
        #expect(Self.me.protection(cgroup: "/user.slice/user-1000.slice/session-10.scope", owner: 1000) == nil)
        #expect(Self.me.protection(cgroup: "/system.slice/backup.service", owner: 0) == .otherUser)
        #expect(Self.me.protection(cgroup: "/system.slice/backup.service", owner: nil) == .otherUser)
        var root = Self.me
        root.isRoot = true
        #expect(root.protection(cgroup: "/system.slice/backup.service", owner: 0) == nil)
    }
}
