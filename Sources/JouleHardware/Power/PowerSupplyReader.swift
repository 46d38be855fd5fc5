/// Reads the power_supply class through a `DeviceSource` (libudev or a fixture tree).
public struct PowerSupplyReader: Sendable {
    private let source: any DeviceSource

    public init(source: any DeviceSource) {
        self.source = source
    }

    /// Throws only when the source itself fails; a broken battery attribute shows as null.
    public func read() throws(HardwareError) -> PowerSupplies {
        let devices = try source.devices(subsystem: "power_supply")
        // DMI identifies MacBooks for the capacity quirk; a machine without DMI (a Pi) has none.
        let dmi = (try? source.devices(subsystem: "dmi")) ?? []
        let productName = dmi.lazy.compactMap { $0.string("product_name") }.first
        return PowerSupplyParser.parse(devices, productName: productName)
    }
}
