import JouleHardware

/// Limits cgroups through cgroup v2 `cpu.max`, enabling the `cpu` controller in the parent's
/// `cgroup.subtree_control` when that is what keeps `cpu.max` away and the kernel allows it.
/// Remembers every value it replaced and every controller it enabled, and undoes both in
/// `restoreAll()`.
struct CgroupCPULimiter<Controller: ProcessController> {
    enum Outcome: Sendable {
        /// `cpu.max` holds the limit; `enabledController` when `+cpu` had to be written first.
        case limited(enabledController: Bool)
        /// `cpu.max` cannot be used; why, for the user.
        case unavailable(String)
    }

    let controller: Controller
    /// Original `cpu.max` of each cgroup limited, restored on the way out.
    private(set) var originals: [CgroupPath: String] = [:]
    /// Cgroups whose parent got `+cpu` from us, given `-cpu` on the way out.
    private(set) var enabled: [CgroupPath] = []

    init(controller: Controller) { self.controller = controller }

    /// Writes `value` (e.g. `20000 100000`) to the cgroup's `cpu.max`.
    mutating func limit(_ cgroup: CgroupPath, to value: String) -> Outcome {
        let first: HardwareError
        do {
            try write(cgroup, value)
            return .limited(enabledController: false)
        } catch {
            first = error
        }
        // A missing or unwritable cpu.max usually means the parent does not delegate `cpu`.
        guard cgroup.parent != nil, !controller.cpuControllerEnabled(for: cgroup) else {
            return .unavailable("\(first)")
        }
        do {
            try controller.enableCPUController(for: cgroup)
        } catch {
            return .unavailable("\(first); cannot enable the cpu controller: \(error)")
        }
        do {
            try write(cgroup, value)
            enabled.append(cgroup)
            return .limited(enabledController: true)
        } catch {
            try? controller.disableCPUController(for: cgroup)
            return .unavailable("\(first); still unusable after enabling the cpu controller: \(error)")
        }
    }

    private mutating func write(_ cgroup: CgroupPath, _ value: String) throws(HardwareError) {
        let original = try controller.readCPUMax(cgroup: cgroup)
        try controller.writeCPUMax(cgroup: cgroup, value: value)
        if originals[cgroup] == nil { originals[cgroup] = original }
    }

    /// Restores every `cpu.max`, then disables every controller it enabled. Returns what
    /// failed. Safe to call more than once.
    mutating func restoreAll() -> [String] {
        var failures: [String] = []
        for (cgroup, original) in originals.sorted(by: { $0.key < $1.key }) {
            do {
                try controller.writeCPUMax(cgroup: cgroup, value: original)
            } catch {
                failures.append("cannot restore cpu.max of \(cgroup) to \(original): \(error)")
            }
        }
        originals.removeAll()
        for cgroup in enabled.reversed() {
            do {
                try controller.disableCPUController(for: cgroup)
            } catch {
                failures.append("cannot disable the cpu controller for \(cgroup): \(error)")
            }
        }
        enabled.removeAll()
        return failures
    }
}
