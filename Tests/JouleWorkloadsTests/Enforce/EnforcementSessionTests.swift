import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleWorkloads
import JouleTesting
import Testing

/// The enforce engine driven as the daemon will drive it: no CLI, a fixture tree for the
/// energy states, a fake cgroup tree for the workloads.
@Suite struct EnforcementSessionTests {
    static let fixtures = PackageRoot.url.appendingPathComponent("hw-fixtures").path

    final class Collected: Sendable {
        let outputs = Locked<[EnforcementSession.Output]>([])
        func append(_ output: EnforcementSession.Output) { outputs.withLock { $0.append(output) } }
        var all: [EnforcementSession.Output] { outputs.withLock { $0 } }
    }

    static func session(_ tree: ProcTree, dryRun: Bool) -> EnforcementSession {
        let policy = EnforcePolicy(classes: [
            WorkloadClass(name: "builds", level: .normal, selectors: [.cgroup("/build.slice")]),
        ])
        var options = EnforcementSession.Options(
            policy: policy, stateDirectory: StateDirectory(path: tree.path + "/state"))
        options.dryRun = dryRun
        options.cgroupRoot = tree.path
        return EnforcementSession(options: options)
    }

    static func makeTree() throws -> ProcTree {
        let tree = try ProcTree()
        try tree.write("sys/fs/cgroup/build.slice/cgroup.freeze", "0\n")
        try tree.write("sys/fs/cgroup/build.slice/cgroup.events", "populated 1\nfrozen 0\n")
        return tree
    }

    /// At thermal critical the class freezes; when the stop stream ends, the session thaws
    /// it, removes its journal and releases its lock before returning.
    @Test func pausesAtCriticalAndResumesWhenStopped() async throws {
        let tree = try Self.makeTree()
        let (stop, stopper) = AsyncStream.makeStream(of: TerminationSignal.self)
        let collected = Collected()
        let freeze = tree.path + "/sys/fs/cgroup/build.slice/cgroup.freeze"
        let device = SysfsDeviceSource(root: Self.fixtures + "/hp-zbook-overheated-fan-active")
        let run = Task {
            try await Self.session(tree, dryRun: false).run(
                source: device, procRoot: Self.fixtures + "/hp-zbook-overheated-fan-active", overrideStore: nil,
                clock: ManualClock(), stop: stop, emit: collected.append)
        }
        // The fake cgroup has no kernel behind it: mirror the kernel's confirmation.
        _ = await eventually(every: .milliseconds(1)) { (try? String(contentsOfFile: freeze, encoding: .utf8)) == "1\n" }
        #expect(try String(contentsOfFile: freeze, encoding: .utf8) == "1\n")
        #expect(FileManager.default.fileExists(atPath: tree.path + "/state/enforce-paused.json"))
        stopper.yield(.terminate)
        try await run.value
        #expect(try String(contentsOfFile: freeze, encoding: .utf8) == "0\n")
        #expect(!FileManager.default.fileExists(atPath: tree.path + "/state/enforce-paused.json"))

        let outputs = collected.all
        guard case .started(let classes, _, let thermal, let dryRun) = outputs.first else {
            Issue.record("first output is not .started: \(outputs)")
            return
        }
        #expect(classes == 1 && thermal == .critical && !dryRun)
        let actions = outputs.compactMap { output -> EnforcementAction? in
            if case .action(let action) = output { return action }
            return nil
        }
        #expect(actions.map(\.kind) == [.pause, .resume])
        #expect(actions.last?.reason == "signal:SIGTERM")
        // The lock is released: a second session can start at once.
        let lock = try #require(try ExclusiveLock.acquire(tree.path + "/state/enforce.lock"))
        lock.release()
    }

    /// A dry run decides and reports but writes nothing: no freeze, no journal, no lock file.
    @Test func dryRunTouchesNothing() async throws {
        let tree = try Self.makeTree()
        let (stop, stopper) = AsyncStream.makeStream(of: TerminationSignal.self)
        stopper.finish()
        let collected = Collected()
        try await Self.session(tree, dryRun: true).run(
            source: SysfsDeviceSource(root: Self.fixtures + "/hp-zbook-overheated-fan-active"),
            procRoot: Self.fixtures + "/hp-zbook-overheated-fan-active", overrideStore: nil, clock: ManualClock(),
            stop: stop, emit: collected.append)
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/build.slice/cgroup.freeze", encoding: .utf8) == "0\n")
        #expect(!FileManager.default.fileExists(atPath: tree.path + "/state"))
        let reasons = collected.all.compactMap { output -> String? in
            if case .action(let action) = output { return "\(action.kind):\(action.reason)" }
            return nil
        }
        #expect(reasons == ["pause:thermal:critical", "resume:exit"])
    }

    /// A second session on the same state directory is refused while the first holds it.
    @Test func oneRunPerStateDirectory() async throws {
        let tree = try Self.makeTree()
        try FileManager.default.createDirectory(atPath: tree.path + "/state", withIntermediateDirectories: true)
        let held = try #require(try ExclusiveLock.acquire(tree.path + "/state/enforce.lock"))
        defer { held.release() }
        await #expect(throws: EnforcementSession.Failure.self) {
            try await Self.session(tree, dryRun: false).resumeLeftovers(clock: ManualClock()) { _ in }
        }
    }
}
