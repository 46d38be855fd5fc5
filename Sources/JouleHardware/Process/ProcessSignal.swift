#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The signals process control sends.
public enum ProcessSignal: Sendable, Hashable, CustomStringConvertible {
    case kill, stop, cont

    public var number: Int32 {
        switch self {
        case .kill: SIGKILL
        case .stop: SIGSTOP
        case .cont: SIGCONT
        }
    }

    public var description: String {
        switch self {
        case .kill: "SIGKILL"
        case .stop: "SIGSTOP"
        case .cont: "SIGCONT"
        }
    }
}
