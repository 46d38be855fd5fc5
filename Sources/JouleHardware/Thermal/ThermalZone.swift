/// A thermal zone (`/sys/class/thermal/thermal_zoneN`) as read at one instant.
public struct ThermalZone: Sendable, Hashable {
    /// Kernel name, e.g. `thermal_zone0`.
    public var name: String
    /// Zone type as the driver names it, e.g. `x86_pkg_temp`, `cpu-thermal`, `acpitz`.
    public var type: String?
    /// Temperature in °C, or nil when the sensor gave no valid reading (see `error`).
    public var temperatureC: Double?
    /// Why `temperatureC` is nil, naming the attribute and the failure.
    public var error: String?
    /// `enabled` or `disabled`; nil where the kernel exposes no mode file.
    public var mode: String?
    /// Trip points in index order.
    public var trips: [TripPoint]

    public init(
        name: String, type: String? = nil, temperatureC: Double? = nil, error: String? = nil,
        mode: String? = nil, trips: [TripPoint] = []
    ) {
        self.name = name
        self.type = type
        self.temperatureC = temperatureC
        self.error = error
        self.mode = mode
        self.trips = trips
    }

    /// A zone votes unless its mode says `disabled` (no mode file means enabled).
    public var isEnabled: Bool { mode != "disabled" }
}
