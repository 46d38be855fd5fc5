import JouleHardware

/// What a class's selectors name right now.
public struct WorkloadResolution: Sendable, Hashable {
    /// Targets that may be paused, in selector order, without duplicates.
    public var targets: [PauseTarget] = []
    /// Matches a safety rule keeps untouched.
    public var protected: [ProtectedTarget] = []
    /// Selectors that could not be resolved (unreadable pid file, missing cgroup…).
    public var problems: [String] = []

    public init(targets: [PauseTarget] = [], protected: [ProtectedTarget] = [], problems: [String] = []) {
        self.targets = targets
        self.protected = protected
        self.problems = problems
    }
}

public struct ProtectedTarget: Sendable, Hashable {
    public var target: PauseTarget
    public var reason: Protection

    public init(target: PauseTarget, reason: Protection) {
        self.target = target
        self.reason = reason
    }
}

/// Turns selectors into targets. The live resolver scans /proc; tests substitute a table.
public protocol WorkloadResolver: Sendable {
    func resolve(_ workloadClass: WorkloadClass) -> WorkloadResolution
    /// Whether the process with this identity still exists (and is not a zombie).
    func isAlive(_ identity: ProcessIdentity) -> Bool
}
