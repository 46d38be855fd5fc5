/// One way a policy names the work of a class.
public enum WorkloadSelector: Sendable, Hashable, CustomStringConvertible {
    /// A cgroup v2 path relative to the mount (`/system.slice/x.service`), frozen as a whole.
    case cgroup(String)
    /// A systemd unit (`x.service`), frozen through the cgroup(s) it runs in.
    case unit(String)
    /// Processes whose name (comm, or the base name of argv[0]) is exactly this.
    case process(String)
    /// Processes whose comm contains a match of this regular expression.
    case processRegex(String)
    /// Processes whose command line (arguments joined by spaces) contains a match.
    case commandRegex(String)
    /// The process whose PID is the first line of this file.
    case pidFile(String)

    /// The policy key that introduces this selector.
    public var key: String {
        switch self {
        case .cgroup: "cgroup"
        case .unit: "unit"
        case .process: "process"
        case .processRegex: "processRegex"
        case .commandRegex: "commandRegex"
        case .pidFile: "pidFile"
        }
    }

    public var value: String {
        switch self {
        case .cgroup(let v), .unit(let v), .process(let v), .processRegex(let v), .commandRegex(let v), .pidFile(let v): v
        }
    }

    /// Whether the selector pauses a cgroup (freezer) rather than processes (signals).
    public var selectsCgroups: Bool {
        switch self {
        case .cgroup, .unit: true
        default: false
        }
    }

    public var description: String { "\(key): \(value)" }
}
