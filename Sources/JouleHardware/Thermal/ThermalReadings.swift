/// Everything thermal read at one instant: zones, cooling devices, and hwmon inputs that the
/// thermal core does not already mirror.
public struct ThermalReadings: Sendable, Hashable {
    public var zones: [ThermalZone]
    public var coolingDevices: [CoolingDevice]
    public var hwmon: [HwmonSensor]

    public init(zones: [ThermalZone] = [], coolingDevices: [CoolingDevice] = [], hwmon: [HwmonSensor] = []) {
        self.zones = zones
        self.coolingDevices = coolingDevices
        self.hwmon = hwmon
    }
}
