import JouleWire
import JouleHardware
import JouleEnergy

/// Where the energy policy (Low Power Mode, thermal state) tells running scans to lower or
/// stop their duty cycle. Any task may set it; the session runner reads it before each event
/// and applies a change at once.
public final class ScanPolicySwitch: Sendable {
    private let value: Locked<ScanPolicyInput>

    public init(_ initial: ScanPolicyInput = .normal) { value = Locked(initial) }

    public var current: ScanPolicyInput { value.withLock { $0 } }

    public func set(_ policy: ScanPolicyInput) { value.withLock { $0 = policy } }

    /// Keeps the switch in step with the energy engine: its state now, then every change,
    /// until the engine's events end or the task is cancelled.
    public func follow(_ info: some EnergyConditions) async {
        set(.forEnergy(lowPowerMode: info.isLowPowerModeEnabled, thermalState: info.thermalState))
        for await event in info.events {
            set(.forEnergy(lowPowerMode: event.lowPowerMode, thermalState: event.thermalState))
        }
    }

    /// Starts the energy engine with `start`, then follows it; throws when it cannot start.
    public func follow(_ start: @Sendable () async throws -> any EnergyConditions) async throws {
        await follow(try await start())
    }
}
