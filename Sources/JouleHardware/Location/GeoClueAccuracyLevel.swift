/// GeoClue2's `GClueAccuracyLevel`, the unit of `RequestedAccuracyLevel`: how fine a fix the
/// client asks for, which decides which sources GeoClue turns on (GeoIP for COUNTRY and CITY,
/// Wi-Fi for NEIGHBORHOOD and STREET, GPS for EXACT).
public enum GeoClueAccuracyLevel: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case none = 0
    case country = 1
    case city = 4
    case neighborhood = 5
    case street = 6
    case exact = 8

    /// The coarsest level whose fixes meet a request of `metres` (issue 34's table): ≤ 100 m
    /// EXACT, ≤ 1,000 m STREET, ≤ 5,000 m NEIGHBORHOOD, ≤ 15,000 m CITY, otherwise COUNTRY. A
    /// request that is not a number above 0 asks for the finest.
    public static func coarsest(meeting metres: Double) -> GeoClueAccuracyLevel {
        guard metres.isFinite, metres > 0 else { return metres == .infinity ? .country : .exact }
        if metres <= 100 { return .exact }
        if metres <= 1_000 { return .street }
        if metres <= 5_000 { return .neighborhood }
        if metres <= 15_000 { return .city }
        return .country
    }

    public var description: String {
        switch self {
        case .none: "NONE (0)"
        case .country: "COUNTRY (1)"
        case .city: "CITY (4)"
        case .neighborhood: "NEIGHBORHOOD (5)"
        case .street: "STREET (6)"
        case .exact: "EXACT (8)"
        }
    }
}
