import JouleHardware

/// Why the CPU monitor cannot start or continue.
public enum CPUMonitorError: Error, Sendable, CustomStringConvertible {
    /// A refused or inconsistent option; the CLI exits 2.
    case invalidConfiguration(String)
    /// A `--match` pattern that does not compile.
    case invalidPattern(String, String)
    /// /proc could not be read at all.
    case procUnreadable(HardwareError)

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): message
        case .invalidPattern(let pattern, let reason): "--match \(pattern): not a valid regular expression: \(reason)"
        case .procUnreadable(let error): "cannot read processes: \(error)"
        }
    }
}
