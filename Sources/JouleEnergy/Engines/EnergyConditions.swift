/// What a consumer of the energy state reads: Low Power Mode, the thermal state, and their
/// changes. `JouleProcessInfo` (the daemon's or an in-process engine's) is one; the beacon
/// engines take this instead, so they do not depend on how the state is found.
public protocol EnergyConditions: Sendable {
    var isLowPowerModeEnabled: Bool { get }
    var thermalState: ThermalState { get }
    /// Every change, with its time and the state after it.
    var events: AsyncStream<TimedEvent> { get }
}
