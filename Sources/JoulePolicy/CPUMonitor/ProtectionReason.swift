/// Why a selected process is never acted on.
public enum ProtectionReason: String, Sendable, CaseIterable, CustomStringConvertible {
    case initProcess
    case monitorItself
    case monitorParent
    case kernelThread
    case otherUser

    public var description: String {
        switch self {
        case .initProcess: "pid 1 (init) is never touched"
        case .monitorItself: "the monitor itself is never touched"
        case .monitorParent: "the monitor's parent is never touched"
        case .kernelThread: "kernel threads are never touched"
        case .otherUser: "another user's process is touched only when running as root"
        }
    }

    /// The safety rules, in order: pid 1, self, parent, kernel threads (PF_KTHREAD, kthreadd
    /// and its children), then ownership (an unknown owner counts as another user).
    public static func check(_ facts: ProcessFacts, monitor: MonitorIdentity) -> ProtectionReason? {
        if facts.pid == 1 { return .initProcess }
        if facts.pid == monitor.pid { return .monitorItself }
        if facts.pid == monitor.ppid { return .monitorParent }
        if facts.isKernelThread || facts.pid == 2 || facts.ppid == 2 { return .kernelThread }
        if !monitor.isRoot && facts.uid != monitor.uid { return .otherUser }
        return nil
    }
}
