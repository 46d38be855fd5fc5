/// The signals process control sends.
public enum ProcessSignal: Sendable, Hashable, CustomStringConvertible {
    case kill, stop, cont, term

    public var number: Int32 {
        switch self {
        case .kill: Syscalls.SignalNumber.kill
        case .stop: Syscalls.SignalNumber.stop
        case .cont: Syscalls.SignalNumber.cont
        case .term: Syscalls.SignalNumber.terminate
        }
    }

    public var description: String {
        switch self {
        case .kill: "SIGKILL"
        case .stop: "SIGSTOP"
        case .cont: "SIGCONT"
        case .term: "SIGTERM"
        }
    }
}
