import JouleEnergy

/// Why a class is paused.
public enum PauseCause: Sendable, Hashable, CustomStringConvertible {
    case thermal(ThermalState)
    case lowPowerMode

    /// The `reason` of a pause line: `thermal:fair`, …, or `lowPowerMode`.
    public var description: String {
        switch self {
        case .thermal(let state): "thermal:\(state)"
        case .lowPowerMode: "lowPowerMode"
        }
    }
}
