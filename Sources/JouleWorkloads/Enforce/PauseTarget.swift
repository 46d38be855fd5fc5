import JouleWire
import JouleHardware

/// One thing a class pauses: a cgroup (frozen) or a process (stopped).
public enum PauseTarget: Sendable, Hashable, CustomStringConvertible {
    /// A cgroup path relative to the cgroup v2 mount, e.g. `/system.slice/x.service`.
    case cgroup(String)
    /// A process by identity (so a reused PID is never hit), with its name for reports.
    case process(ProcessIdentity, name: String)

    /// What identifies the target across classes and rescans (the name may change).
    public var key: Key {
        switch self {
        case .cgroup(let path): .cgroup(path)
        case .process(let identity, _): .process(identity)
        }
    }

    public enum Key: Sendable, Hashable {
        case cgroup(String)
        case process(ProcessIdentity)
    }

    public var description: String {
        switch self {
        case .cgroup(let path): "cgroup \(path)"
        case .process(let identity, let name): "\(name) [\(identity.pid)]"
        }
    }

    /// The target's fields in an action line: `kind`, then `cgroup` or `pid`/`name`.
    public var json: JSONObject {
        switch self {
        case .cgroup(let path):
            return ["kind": .string("cgroup"), "cgroup": .string(path)]
        case .process(let identity, let name):
            return ["kind": .string("process"), "pid": .int(Int(identity.pid)), "name": .string(name)]
        }
    }
}
