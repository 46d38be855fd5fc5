/// The signals that ask a long-running command to stop cleanly.
public enum TerminationSignal: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case interrupt, terminate, hangup

    public var number: Int32 {
        switch self {
        case .interrupt: Syscalls.SignalNumber.interrupt
        case .terminate: Syscalls.SignalNumber.terminate
        case .hangup: Syscalls.SignalNumber.hangup
        }
    }

    public init?(number: Int32) {
        guard let found = Self.allCases.first(where: { $0.number == number }) else { return nil }
        self = found
    }

    /// `SIGINT`, as the JSON contracts and messages spell it.
    public var description: String {
        switch self {
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        case .hangup: "SIGHUP"
        }
    }
}
