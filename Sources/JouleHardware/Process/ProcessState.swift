/// The one-letter scheduler state of /proc/PID/stat field 3 (see proc(5)).
public struct ProcessState: Sendable, Hashable, CustomStringConvertible {
    /// The letter as the kernel writes it, e.g. `R`, `S`, `T`.
    public var code: UInt8

    public init(code: UInt8) { self.code = code }

    public static let running = ProcessState(code: UInt8(ascii: "R"))
    public static let sleeping = ProcessState(code: UInt8(ascii: "S"))
    public static let diskSleep = ProcessState(code: UInt8(ascii: "D"))
    public static let stopped = ProcessState(code: UInt8(ascii: "T"))
    public static let tracingStop = ProcessState(code: UInt8(ascii: "t"))
    public static let zombie = ProcessState(code: UInt8(ascii: "Z"))
    public static let idle = ProcessState(code: UInt8(ascii: "I"))

    /// `T` (job-control stop) or `t` (ptrace stop).
    public var isStopped: Bool { self == .stopped || self == .tracingStop }

    /// The letter, e.g. `R`.
    public var letter: String { String(UnicodeScalar(code)) }

    /// A readable name for reports.
    public var name: String {
        switch UnicodeScalar(code) {
        case "R": "running"
        case "S": "sleeping"
        case "D": "disk-sleep"
        case "T": "stopped"
        case "t": "tracing-stop"
        case "Z": "zombie"
        case "X", "x": "dead"
        case "I": "idle"
        case "P": "parked"
        case "K": "wakekill"
        case "W": "waking"
        default: "unknown"
        }
    }

    public var description: String { letter }
}
