import JouleEnergy

/// What the scan controller wants the radio to do.
public enum RadioState: Sendable, Hashable, CustomStringConvertible {
    case off
    case scanning(ScanDuty)

    public var isOn: Bool { if case .scanning = self { true } else { false } }

    public var description: String {
        switch self {
        case .off: "off"
        case .scanning(let duty): "scanning \(duty)"
        }
    }
}

/// Input from the energy policy (Low Power Mode, thermal state) to the scan controller.
public enum ScanPolicyInput: String, Sendable, CaseIterable {
    /// Scan as the clients need.
    case normal
    /// Low Power Mode or a serious thermal state: lower the duty cycle.
    case reduced
    /// Critical state: keep the radio off.
    case stopped

    /// What the energy state asks of a running scan, following Apple's guidance: reduce work in
    /// Low Power Mode and at serious, stop optional work at critical.
    public static func forEnergy(lowPowerMode: Bool, thermalState: ThermalState) -> ScanPolicyInput {
        if thermalState == .critical { return .stopped }
        if lowPowerMode || thermalState == .serious { return .reduced }
        return .normal
    }
}
