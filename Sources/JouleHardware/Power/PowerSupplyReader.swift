/// Reads the power_supply class through a `DeviceSource` (libudev or a fixture tree).
public struct PowerSupplyReader: Sendable {
    private let source: any DeviceSource
    /// The DMI product name, read once here: it identifies MacBooks for the capacity quirk,
    /// and a machine without DMI (a Pi) has none.
    public let productName: String?

    public init(source: any DeviceSource) {
        self.source = source
        productName = Self.productName(from: source)
    }

    /// Throws only when the source itself fails; a broken battery attribute shows as null.
    public func read() throws(HardwareError) -> PowerSupplies {
        PowerSupplyParser.parse(try source.devices(subsystem: "power_supply"), productName: productName)
    }

    /// The attributes of a power supply that change while it is in use; the others (identity,
    /// design values, thresholds) are only re-read when the poller enumerates again.
    public static func volatileAttributes(of device: DeviceSnapshot) -> [String] {
        device.attributes.keys.filter { !staticAttributes.contains($0) }
    }

    static let staticAttributes: Set<String> = [
        "type", "scope", "technology", "model_name", "manufacturer", "serial_number",
        "energy_full_design", "charge_full_design", "voltage_min_design", "voltage_max_design",
        "charge_control_start_threshold", "charge_control_end_threshold", "charge_behaviour",
        "charge_types", "charge_type", "alarm", "capacity_alert_min", "capacity_alert_max",
        "usb_type", "manufacture_year", "manufacture_month", "manufacture_day", "cycle_count",
        "precharge_current", "charge_term_current", "constant_charge_current_max",
        "constant_charge_voltage_max", "input_current_limit", "model", "health",
    ]

    /// The DMI product name, used for the MacBook capacity quirk; nil without DMI (boards).
    static func productName(from source: any DeviceSource) -> String? {
        let dmi = (try? source.devices(subsystem: "dmi")) ?? []
        return dmi.lazy.compactMap { $0.string("product_name") }.first
    }
}
