import Synchronization

/// Where the energy policy (Low Power Mode, thermal state) tells running scans to lower or
/// stop their duty cycle. Any task may set it; the session runner reads it before each event
/// and applies a change at once.
public final class ScanPolicySwitch: Sendable {
    private let value: Mutex<ScanPolicyInput>

    public init(_ initial: ScanPolicyInput = .normal) { value = Mutex(initial) }

    public var current: ScanPolicyInput { value.withLock { $0 } }

    public func set(_ policy: ScanPolicyInput) { value.withLock { $0 = policy } }
}
