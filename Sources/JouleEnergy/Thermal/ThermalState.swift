/// Apple's `ProcessInfo.ThermalState`, derived from Linux thermal zones and cooling devices.
public enum ThermalState: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    case nominal = 0, fair, serious, critical

    public static func < (lhs: ThermalState, rhs: ThermalState) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .nominal: "nominal"
        case .fair: "fair"
        case .serious: "serious"
        case .critical: "critical"
        }
    }

    public init?(name: String) {
        guard let state = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = state
    }
}
