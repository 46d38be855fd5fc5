import Foundation
@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Testing

/// The SIGSTOP/SIGCONT fallback with live process control on real children, listed in a fake
/// cgroup tree (this machine's cgroups may not be v2, and tests must not change them).
@Suite struct CPUMonitorLiveFallbackTests {
    static func state(_ pid: Int32) -> ProcessState? { try? ProcFS().stat(pid)?.state }

    static func wait(_ pid: Int32, for wanted: ProcessState) async -> Bool {
        await eventually(every: .milliseconds(10)) { state(pid) == wanted }
    }

    @Test func aDutyCycledCgroupIsStoppedAndEverythingContinuedOnRelease() async throws {
        var children: [Process] = []
        defer {
            // Not waited for: Foundation reaps them, and a defer cannot await.
            for child in children {
                kill(child.processIdentifier, SIGKILL)
                kill(child.processIdentifier, SIGCONT)
            }
        }
        for _ in 0..<2 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sleep")
            child.arguments = ["60"]
            try child.run()
            children.append(child)
        }
        let pids = children.map(\.processIdentifier)
        let tree = try ProcTree()
        try tree.write("sys/fs/cgroup/app.slice/cgroup.procs", "\(pids[0])\n")
        try tree.write("sys/fs/cgroup/app.slice/sub/cgroup.procs", "\(pids[1])\n")
        let controller = PidfdProcessController(root: "/", cgroupRoot: tree.path)
        let cgroup = CgroupPath("/app.slice")
        var throttler = DutyCycleThrottler(controller: controller, period: .milliseconds(100), limitPercent: 50)
        throttler.hold(cgroup: cgroup, duty: 0.5, now: 0)
        let members: (CgroupPath) -> [ProcessIdentity] = { cgroup in
            controller.processes(inTree: cgroup).compactMap { try? ProcFS().stat($0)?.identity }
        }
        #expect(throttler.advance(now: 0, members: members) == 0.05)
        _ = throttler.advance(now: 0.05, members: members)
        for pid in pids { #expect(await Self.wait(pid, for: .stopped)) }
        _ = throttler.advance(now: 0.1, members: members)  // the next slot continues them
        for pid in pids { #expect(await Self.wait(pid, for: .sleeping)) }
        _ = throttler.advance(now: 0.16, members: members)
        for pid in pids { #expect(await Self.wait(pid, for: .stopped)) }
        #expect(throttler.releaseAll().isEmpty)
        for pid in pids { #expect(await Self.wait(pid, for: .sleeping)) }
    }
}
