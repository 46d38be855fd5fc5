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
}
