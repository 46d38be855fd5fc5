import JouleHardware

/// Why `joule enforce` cannot start.
public enum EnforcerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another live run owns the journal: two enforcers would undo each other's pauses.
    case anotherRunIsActive(pid: Int32, journal: String)
    case journal(HardwareError)

    public var description: String {
        switch self {
        case .anotherRunIsActive(let pid, let journal):
            "another joule enforce (pid \(pid)) holds \(journal); stop it first"
        case .journal(let error):
            "cannot read the pause journal (\(error)); check that nothing it names is still stopped or frozen, then remove \(error.path)"
        }
    }
}
