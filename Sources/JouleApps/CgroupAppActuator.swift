import JouleHardware
import JouleWorkloads

/// An app in a cgroup v2 of its own: `cgroup.freeze` confirmed by `cgroup.events`,
/// `cgroup.kill`, and `cpu.stat`.
public struct CgroupAppActuator: AppActuator {
    public let controller: PidfdProcessController
    public let cgroup: String?
    private let path: String

    public init(controller: PidfdProcessController, cgroup: String) {
        self.controller = controller
        self.cgroup = cgroup
        path = cgroup
    }

    public var suspension: AppSuspension { .cgroupFreezer }

    public func targets() -> [PauseTarget] { [.cgroup(path)] }

    public func pause(_ targets: [PauseTarget]) throws(HardwareError) { _ = try controller.freeze(cgroup: path) }

    public func isPaused() -> Bool { (try? controller.freezeState(cgroup: path)) == .frozen }

    public func resume() throws(HardwareError) {
        guard controller.freezer.exists(path) else { return }
        _ = try controller.thaw(cgroup: path)
    }

    public func signalAll(_ signal: ProcessSignal) {
        if signal == .kill, (try? controller.freezer.kill(path)) != nil { return }
        ProcessTreeActuator.signal(controller.freezer.processesInTree(path), signal, controller: controller)
    }

    public func cpuNanoseconds() -> UInt64? { controller.freezer.cpuUsageNanoseconds(path) }
}
