import JouleHardware
import JouleWorkloads

/// An app in a cgroup v2 of its own: `cgroup.freeze` confirmed by `cgroup.events`,
/// `cgroup.kill`, and `cpu.stat`.
package struct CgroupAppActuator: AppActuator {
    package let controller: PidfdProcessController
    package let cgroup: String?
    private let path: String

    package init(controller: PidfdProcessController, cgroup: String) {
        self.controller = controller
        self.cgroup = cgroup
        path = cgroup
    }

    package var suspension: AppSuspension { .cgroupFreezer }

    package func targets() -> [PauseTarget] { [.cgroup(path)] }

    package func pause(_ targets: [PauseTarget]) throws(HardwareError) { _ = try controller.freeze(cgroup: path) }

    package func isPaused() -> Bool { (try? controller.freezeState(cgroup: path)) == .frozen }

    package func resume() throws(HardwareError) {
        guard controller.freezer.exists(path) else { return }
        _ = try controller.thaw(cgroup: path)
    }

    package func signalAll(_ signal: ProcessSignal) {
        if signal == .kill, (try? controller.freezer.kill(path)) != nil { return }
        ProcessTreeActuator.signal(controller.freezer.processesInTree(path), signal, controller: controller)
    }

    package func cpuNanoseconds() -> UInt64? { controller.freezer.cpuUsageNanoseconds(path) }
}
