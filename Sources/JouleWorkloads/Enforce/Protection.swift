/// Why a process or cgroup is never stopped, frozen, throttled or killed.
public enum Protection: String, Sendable, Hashable, CaseIterable {
    case initProcess
    case jouleItself
    case jouleParent
    case jouleAncestor
    case kernelThread
    case otherUser
    case containsJoule
    case containsInit

    /// The reason as `joule enforce` prints it.
    public var pauseDescription: String {
        switch self {
        case .initProcess: "pid 1 is never paused"
        case .jouleItself: "joule enforce never pauses itself"
        case .jouleParent, .jouleAncestor: "joule enforce never pauses its parent or ancestors"
        case .kernelThread: "kernel threads are never paused"
        case .otherUser: "another user's work is paused only when running as root"
        case .containsJoule: "the cgroup holds joule enforce or its parent"
        case .containsInit: "the cgroup holds pid 1"
        }
    }

    /// The reason as `joule cpu-monitor` prints it.
    public var monitorDescription: String {
        switch self {
        case .initProcess: "pid 1 (init) is never touched"
        case .jouleItself: "the monitor itself is never touched"
        case .jouleParent: "the monitor's parent is never touched"
        case .jouleAncestor: "the monitor's ancestors are never touched"
        case .kernelThread: "kernel threads are never touched"
        case .otherUser: "another user's process is touched only when running as root"
        case .containsJoule: "the cgroup holds the monitor or its parent"
        case .containsInit: "the cgroup holds pid 1 (init)"
        }
    }
}
