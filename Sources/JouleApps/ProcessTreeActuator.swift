import JouleHardware
import JouleWorkloads

/// The fallback where no writable cgroup v2 exists (cgroup v1 machines): the app is every
/// descendant of its supervisor process (`joule run`, a subreaper, so orphans stay in the
/// tree), stopped with SIGSTOP and continued with SIGCONT through pidfds. A stopped tree is
/// confirmed when /proc shows every member in state `T`.
package struct ProcessTreeActuator: AppActuator {
    package let controller: PidfdProcessController
    /// The supervisor process whose descendants are the app.
    package let anchor: Int32

    package init(controller: PidfdProcessController, anchor: Int32) {
        self.controller = controller
        self.anchor = anchor
    }

    package var suspension: AppSuspension { .stopSignals }
    package var cgroup: String? { nil }

    /// The descendants of the anchor now, from one pass over /proc.
    package func members() -> [ProcessStat] {
        let procfs = controller.procfs
        guard let pids = try? procfs.pids() else { return [] }
        var children: [Int32: [ProcessStat]] = [:]
        for pid in pids {
            guard let stat = (try? procfs.stat(pid)) ?? nil, !stat.isKernelThread else { continue }
            children[stat.ppid, default: []].append(stat)
        }
        var result: [ProcessStat] = []
        var pending = [anchor]
        while let next = pending.popLast(), result.count < 65_536 {
            for child in children[next] ?? [] {
                result.append(child)
                pending.append(child.pid)
            }
        }
        return result
    }

    package func targets() -> [PauseTarget] {
        members().filter { $0.state != .zombie }.map { .process($0.identity, name: $0.comm) }
    }

    package func pause(_ targets: [PauseTarget]) throws(HardwareError) {
        for case .process(let identity, _) in targets {
            if let handle = try controller.stop(identity) { controller.close(handle) }
        }
    }

    package func isPaused() -> Bool {
        members().allSatisfy { $0.state.isStopped || $0.state == .zombie }
    }

    package func resume() throws(HardwareError) {
        var failure: HardwareError?
        for member in members() {
            do {
                _ = try controller.resumeLeftover(member.identity)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    package func signalAll(_ signal: ProcessSignal) {
        Self.signal(members().map(\.pid), signal, controller: controller)
    }

    package func cpuNanoseconds() -> UInt64? {
        let ticks = members().reduce(UInt64(0)) { $0 &+ $1.cpuTicks }
        return ticks &* 1_000_000_000 / UInt64(max(CurrentProcess.clockTicksPerSecond, 1))
    }

    /// Sends `signal` to each PID through a pidfd opened after an identity check.
    static func signal(_ pids: [Int32], _ signal: ProcessSignal, controller: PidfdProcessController) {
        for pid in pids {
            guard let stat = (try? controller.procfs.stat(pid)) ?? nil,
                  let handle = try? controller.open(stat.identity) else { continue }
            defer { controller.close(handle) }
            switch signal {
            case .kill: _ = try? controller.kill(handle)
            case .cont: _ = try? controller.resume(handle)
            case .stop: _ = try? controller.stop(handle)
            case .term: _ = try? controller.terminate(handle)
            }
        }
    }
}
