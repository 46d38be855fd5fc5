/// One trip point of a thermal zone (`trip_point_N_type`, `_temp`, `_hyst`).
public struct TripPoint: Sendable, Hashable {
    /// The kernel's trip types; anything else is kept as `other`.
    public enum Kind: Sendable, Hashable {
        case active, passive, hot, critical
        case other(String)

        public init(_ text: String) {
            switch text {
            case "active": self = .active
            case "passive": self = .passive
            case "hot": self = .hot
            case "critical": self = .critical
            default: self = .other(text)
            }
        }

        public var name: String {
            switch self {
            case .active: "active"
            case .passive: "passive"
            case .hot: "hot"
            case .critical: "critical"
            case .other(let text): text
            }
        }
    }

    /// Index N in `trip_point_N_*`.
    public var index: Int
    public var kind: Kind
    /// Trip temperature in °C; nil when unreadable or disabled by the firmware.
    public var temperatureC: Double?
    /// Hysteresis in °C; nil where the driver exposes none.
    public var hysteresisC: Double?

    public init(index: Int, kind: Kind, temperatureC: Double?, hysteresisC: Double?) {
        self.index = index
        self.kind = kind
        self.temperatureC = temperatureC
        self.hysteresisC = hysteresisC
    }
}
