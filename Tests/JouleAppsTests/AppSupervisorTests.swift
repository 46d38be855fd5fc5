import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleApps
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The supervisor's cgroup freezer path on a fake cgroup v2 tree, on the injected clock: the
/// files are regular files, so writing `cgroup.freeze` only stores the text and the test plays
/// the kernel by writing `frozen 1` into `cgroup.events`. Time moves only with the ManualClock;
/// real waits are bounded polls for the actor and the event stream to catch up.
@Suite struct AppSupervisorTests {
    /// One supervisor with one app, "app", in the fake cgroup `/app`.
    final class Fixture: Sendable {
        let directory: String
        let cgroupRoot: String
        let cgroupDirectory: String
        let ledgerPath: String
        let clock = ManualClock(now: 1_700_000_000)
        let supervisor: AppSupervisor
        private let record = Record()
        private let watcher: Locked<Task<Void, Never>?> = Locked(nil)

        /// What the supervisor logged and the event stream delivered, shared with its closures.
        final class Record: Sendable {
            let log = Locked<[String]>([])
            let seen = Locked<[Seen]>([])
        }

        /// An event as the stream delivered it, with what `cgroup.freeze` held at that moment.
        struct Seen: Sendable {
            var notice: AppLifecycleNotice
            var freezeFile: String
        }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-appsup-\(UUID().uuidString)").path
            cgroupRoot = directory + "/root"
            cgroupDirectory = cgroupRoot + "/sys/fs/cgroup/app"
            ledgerPath = directory + "/x.paused.json"
            try FileManager.default.createDirectory(atPath: cgroupDirectory, withIntermediateDirectories: true)
            let files = [
                "cgroup.freeze": "0\n", "cgroup.events": "populated 1\nfrozen 0\n", "cgroup.procs": "",
                "cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n", "cgroup.kill": "",
            ]
            for (name, text) in files { try text.write(toFile: cgroupDirectory + "/" + name, atomically: false, encoding: .utf8) }
            let record = record
            supervisor = AppSupervisor(
                clock: clock, ledger: AppPauseLedger(path: ledgerPath, owner: nil), reports: nil,
                log: { line in record.log.withLock { $0.append(line) } })
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        /// Registers "app" (the identity of `pid`, the test process unless a child is given)
        /// and starts collecting its events.
        func start(grace: Duration = .seconds(2), pid: Int32 = getpid()) async throws {
            let stat = try #require(try ProcFS().stat(pid))
            var configuration = AppLifecycleMachine.Configuration()
            configuration.grace = grace
            let actuator = CgroupAppActuator(controller: PidfdProcessController(root: "/", cgroupRoot: cgroupRoot), cgroup: "/app")
            let registration = AppRegistration(
                name: "app", identity: stat.identity, uid: getuid(), configuration: configuration, actuator: actuator, socketPath: nil)
            let stream = await supervisor.events()
            let freezeFile = cgroupDirectory + "/cgroup.freeze"
            let record = record
            watcher.withLock {
                $0 = Task {
                    for await line in stream {
                        let text = (try? String(contentsOfFile: freezeFile, encoding: .utf8)) ?? "?"
                        record.seen.withLock { $0.append(Seen(notice: line.notice, freezeFile: text.trimmingCharacters(in: .whitespacesAndNewlines))) }
                    }
                }
            }
            try await supervisor.add(registration)
        }

        /// Registers another app in the same fake cgroup (for tests that never freeze it).
        func add(_ name: String) async throws {
            let stat = try #require(try ProcFS().stat(getpid()))
            let actuator = CgroupAppActuator(controller: PidfdProcessController(root: "/", cgroupRoot: cgroupRoot), cgroup: "/app")
            try await supervisor.add(AppRegistration(
                name: name, identity: stat.identity, uid: getuid(), configuration: AppLifecycleMachine.Configuration(),
                actuator: actuator, socketPath: nil))
        }

        /// Thaws what is held and ends the event stream.
        func stop() async {
            await supervisor.releaseAll()
            await supervisor.finishEvents()
            watcher.withLock { $0?.cancel() }
        }

        var seenEvents: [Seen] { record.seen.withLock { $0 } }
        var events: [AppLifecycleEvent] { seenEvents.map(\.notice.event) }
        var log: [String] { record.log.withLock { $0 } }

        func file(_ name: String) -> String {
            ((try? String(contentsOfFile: cgroupDirectory + "/" + name, encoding: .utf8)) ?? "<missing>")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Plays the kernel: the freeze is complete.
        func kernelReportsFrozen() throws {
            try "populated 1\nfrozen 1\n".write(toFile: cgroupDirectory + "/cgroup.events", atomically: false, encoding: .utf8)
        }

        var ledgerExists: Bool { FileManager.default.fileExists(atPath: ledgerPath) }
        var ledgerText: String { (try? String(contentsOfFile: ledgerPath, encoding: .utf8)) ?? "" }

        func state() async -> AppLifecycleState? { await supervisor.list().first?.state }

        /// Moves the clock to `instant` and lets the supervisor act on whatever fell due: its
        /// timer wakes, hops onto the actor and sets the next timer (or none is left).
        func advance(to instant: Double) async {
            clock.advance(to: instant)
            await settle()
        }

        func advance(by span: Duration) async {
            clock.advance(by: span)
            await settle()
        }

        func settle() async {
            // Real sleeps, never a spin of yields: a tight loop of 20 000 yields held a
            // cooperative thread and starved every other suite on a 2-core machine.
            await clock.waitForSleepers(1, timeout: 0.2)
            _ = await supervisor.names
            for _ in 0..<20 { await Task.yield() }
        }

        /// Polls `condition` for up to 20 s of real time (the event stream and the actor run
        /// on other threads); never waits for clock time.
        func eventually(_ condition: () async -> Bool) async -> Bool {
            await JouleTesting.eventually(timeout: 20, every: .milliseconds(2), condition)
        }

        /// Asks for the background once, and lets the supervisor's own second look (1 s later)
        /// take it there; returns the instant it entered the background.
        func background() async -> Double {
            let asked = clock.now()
            try? await supervisor.request(.background, app: "app")
            await settle()
            await advance(to: asked + 1)
            _ = await eventually { self.events.contains(.didEnterBackground) }
            return asked + 1
        }

        /// Backgrounds the app, reaches the end of the grace period, and confirms the freeze;
        /// returns the instant it was suspended.
        func suspend(grace: Double = 2) async throws -> Double {
            let since = await background()
            await advance(to: since + grace)
            try #require(file("cgroup.freeze") == "1")
            try kernelReportsFrozen()
            await advance(by: .milliseconds(100))
            try #require(await eventually { await self.state() == .suspended })
            return since + grace + 0.1
        }
    }

    @Test func backgroundIsTakenOnTheSecondLookThenFrozenAndSuspendedOnlyOnceConfirmed() async throws {
        let fake = try Fixture()
        try await fake.start(grace: .seconds(2))
        let asked = fake.clock.now()
        try await fake.supervisor.request(.background, app: "app")
        await fake.settle()
        // Seen once: nothing yet, not even willResignActive.
        await fake.advance(to: asked + 0.5)
        #expect(fake.events.isEmpty)
        #expect(await fake.state() == .active)
        // One second later the supervisor asks again by itself (the request stands).
        await fake.advance(to: asked + 1)
        #expect(await fake.eventually { fake.events == [.willResignActive, .didEnterBackground] })
        let entered = fake.seenEvents.last?.notice
        #expect(entered?.state == .background)
        #expect(entered?.deadline == asked + 3)
        #expect(await fake.state() == .background)
        // The grace period runs: not frozen half-way, frozen at its end.
        await fake.advance(to: asked + 2)
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(!fake.ledgerExists)
        await fake.advance(to: asked + 3)
        #expect(fake.file("cgroup.freeze") == "1")
        // Journaled before the write, naming the cgroup.
        #expect(fake.ledgerText.contains("\"/app\""))
        #expect(fake.ledgerText.contains("app:app"))
        // Not confirmed yet: still background, checked again every 100 ms.
        for _ in 0..<5 { await fake.advance(by: .milliseconds(100)) }
        #expect(await fake.state() == .background)
        #expect(!fake.events.contains(.suspended))
        try fake.kernelReportsFrozen()
        await fake.advance(by: .milliseconds(100))
        #expect(await fake.eventually { fake.events.last == .suspended })
        #expect(await fake.state() == .suspended)
        #expect(await fake.supervisor.list().first?.suspendedCount == 1)
        #expect(fake.ledgerExists)
        await fake.stop()
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(!fake.ledgerExists)
    }

    @Test func aFreezeNeverConfirmedIsUndoneAfterTenSecondsAndNotRetried() async throws {
        let fake = try Fixture()
        try await fake.start(grace: .seconds(2))
        let since = await fake.background()
        let frozeAt = since + 2
        await fake.advance(to: frozeAt)
        #expect(fake.file("cgroup.freeze") == "1")
        // The kernel never says frozen 1: the supervisor keeps looking for 10 s.
        for step in 1...19 {
            await fake.advance(to: frozeAt + Double(step) * 0.5)
        }
        #expect(fake.file("cgroup.freeze") == "1")
        #expect(fake.ledgerExists)
        #expect(await fake.state() == .background)
        await fake.advance(to: frozeAt + 10)
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(fake.log.contains { $0.contains("freeze not confirmed within 10 seconds") })
        #expect(!fake.ledgerExists)
        #expect(await fake.state() == .background)
        #expect(!fake.events.contains(.suspended))
        // Left running in the background: no second attempt as time goes on.
        for step in 1...12 { await fake.advance(to: frozeAt + 10 + Double(step) * 5) }
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(await fake.state() == .background)
        #expect(fake.log.filter { $0.contains("not confirmed") }.count == 1)
        #expect(!fake.ledgerExists)
        await fake.stop()
    }

    @Test func foregroundFromSuspendedThawsBeforeItsEventsAndClearsTheJournal() async throws {
        let fake = try Fixture()
        try await fake.start(grace: .seconds(2))
        _ = try await fake.suspend()
        #expect(fake.ledgerExists)
        let before = fake.seenEvents.count
        try await fake.supervisor.request(.foreground, app: "app")
        // Its own action, not debounced: cgroup.freeze is written during the request.
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(!fake.ledgerExists)
        #expect(await fake.eventually { fake.seenEvents.count == before + 2 })
        let foreground = fake.seenEvents.dropFirst(before)
        #expect(foreground.map(\.notice.event) == [.willEnterForeground, .didBecomeActive])
        #expect(foreground.map(\.notice.state) == [.inactive, .active])
        // Each arrived with the cgroup already thawed. (Both happen in one step of the actor,
        // so this cannot tell the order inside it; the machine's action order is tested in
        // AppLifecycleMachineTests, and the supervisor applies actions in that order.)
        #expect(foreground.allSatisfy { $0.freezeFile == "0" })
        #expect(await fake.state() == .active)
        await fake.stop()
    }

    @Test func lowPowerModeHalvesTheGrace() async throws {
        let fake = try Fixture()
        try await fake.start(grace: .seconds(4))
        await fake.supervisor.setConditions(lowPowerMode: true, thermalState: .nominal)
        let since = await fake.background()
        #expect(fake.seenEvents.last?.notice.deadline == since + 2)
        await fake.advance(to: since + 1.5)
        #expect(fake.file("cgroup.freeze") == "0")
        await fake.advance(to: since + 2)
        #expect(fake.file("cgroup.freeze") == "1")
        await fake.stop()
    }

    @Test func terminateOnAFrozenAppThawsThenSendsSIGTERMThenCgroupKillFiveSecondsLater() async throws {
        let fake = try Fixture()
        // A shell that, on SIGTERM, notes what cgroup.freeze held at that moment and then dies
        // of the signal. Started by joule's own spawner: it clears the signal mask, which a
        // child of the test runner's threads would otherwise inherit with SIGTERM blocked.
        let seenPath = fake.directory + "/freeze-at-sigterm"
        let readyPath = fake.directory + "/ready"
        let script = #"trap 'cat "$1" > "$2"; kill $! 2>/dev/null; trap - TERM; kill -TERM $$' TERM; : > "$3"; sleep 60 & wait"#
        let child = try ChildProcess(
            command: ["sh", "-c", script, "sh", fake.cgroupDirectory + "/cgroup.freeze", seenPath, readyPath],
            environment: ["PATH": "/bin:/usr/bin"], cgroupProcs: nil)
        try child.release()
        let ended = Locked<ChildProcess.Termination?>(nil)
        let waiter = Task {
            let termination = await child.termination(reapOrphans: false)
            ended.withLock { $0 = termination }
        }
        defer { if ended.withLock({ $0 }) == nil { kill(child.pid, SIGKILL) } }
        try #require(await fake.eventually { FileManager.default.fileExists(atPath: readyPath) })
        // signalAll reads cgroup.procs: only the shell is in it.
        try "\(child.pid)\n".write(toFile: fake.cgroupDirectory + "/cgroup.procs", atomically: false, encoding: .utf8)
        try await fake.start(grace: .seconds(2), pid: child.pid)
        _ = try await fake.suspend()
        #expect(ended.withLock { $0 } == nil)
        let asked = fake.clock.now()
        try await fake.supervisor.request(.terminate, app: "app")
        #expect(fake.file("cgroup.freeze") == "0")
        #expect(!fake.ledgerExists)
        // The cgroup's process got SIGTERM, and the thaw had been written before it came.
        #expect(await fake.eventually { ended.withLock { $0 } != nil })
        #expect(ended.withLock { $0 } == .signalled(SIGTERM))
        #expect((try? String(contentsOfFile: seenPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        #expect(fake.file("cgroup.kill") == "")
        await fake.advance(to: asked + 4.5)
        #expect(fake.file("cgroup.kill") == "")
        await fake.advance(to: asked + 5)
        #expect(fake.file("cgroup.kill") == "1")
        #expect(await fake.eventually { fake.events.last == .killed })
        await fake.stop()
        if ended.withLock({ $0 }) == nil { kill(child.pid, SIGKILL) }
        await waiter.value
    }

    @Test func aTimerReplacedAsItWakesLeavesNoStrayTimerBehind() async throws {
        // The woken timer and a request race for the actor: repeat so the request wins at
        // least once (it usually does: the test's task is already running).
        for _ in 0..<20 {
            let fake = try Fixture()
            try await fake.start()
            try await fake.add("other")
            let asked = fake.clock.now()
            try await fake.supervisor.request(.background, app: "app")  // looked at again at +1
            await fake.advance(to: asked + 0.5)
            try await fake.supervisor.request(.background, app: "other")  // at +1.5
            await fake.settle()
            // Wake the +1 timer, and before it reaches the actor take away what it was for:
            // the supervisor sets a new timer for +1.5; the woken one must not orphan it.
            fake.clock.advance(to: asked + 1)
            try await fake.supervisor.request(.foreground, app: "app")
            await fake.settle()
            await fake.supervisor.releaseAll()
            // Released: no timer is left to act later. Every notice sent so far reaches the
            // watcher first (it runs on another thread), so a late one is never miscounted.
            #expect(fake.clock.sleeperCount == 0)
            let sent = await fake.supervisor.noticesSent
            #expect(await fake.eventually { fake.events.count == sent })
            await fake.advance(to: asked + 10)
            await fake.settle()
            #expect(await fake.supervisor.noticesSent == sent)
            #expect(fake.events.count == sent)
            await fake.stop()
        }
    }

    @Test func anUnknownAppIsRefused() async throws {
        let fake = try Fixture()
        try await fake.start()
        await #expect(throws: AppSupervisorError.unknownApp("nope", known: ["app"])) {
            try await fake.supervisor.request(.background, app: "nope")
        }
        #expect(await fake.state() == .active)
        #expect(fake.events.isEmpty)
        await fake.stop()
    }
}
