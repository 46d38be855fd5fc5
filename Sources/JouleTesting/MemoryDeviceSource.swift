import JouleWire
import JouleHardware

/// A device tree in memory that a test edits while the engine runs.
public final class MemoryDeviceSource: DeviceSource {
    public init() {}

    private let devices = Locked<[String: [DeviceSnapshot]]>([:])

    public func set(_ subsystem: String, _ snapshots: [DeviceSnapshot]) {
        devices.withLock { $0[subsystem] = snapshots }
    }

    public func devices(subsystem: String) throws(HardwareError) -> [DeviceSnapshot] {
        devices.withLock { $0[subsystem] ?? [] }
    }

    public func refresh(_ device: DeviceSnapshot, attributes: [String]) -> DeviceSnapshot? {
        guard let current = devices.withLock({ $0[device.subsystem]?.first { $0.syspath == device.syspath } }) else { return nil }
        var refreshed = device
        for name in attributes { refreshed.attributes[name] = current.attributes[name] ?? .failed(.noEntry) }
        return refreshed
    }

    public func memberNames(subsystem: String) -> [String]? {
        devices.withLock { $0[subsystem]?.map(\.sysname) ?? [] }
    }

    public static func battery(_ name: String = "BAT0", status: String, capacity: Int, online: Bool? = nil) -> DeviceSnapshot {
        DeviceSnapshot(
            subsystem: "power_supply", sysname: name, syspath: "/sys/devices/LNXSYSTM:00/PNP0C0A:00/power_supply/\(name)",
            attributes: [
                "type": .value("Battery"), "present": .value("1"), "status": .value(status),
                "capacity": .value(String(capacity)), "energy_full": .value("50000000"),
                "energy_now": .value(String(500_000 * capacity)), "power_now": .value("10000000"),
                "voltage_now": .value("12000000"),
            ])
    }

    public static func ac(online: Bool) -> DeviceSnapshot {
        DeviceSnapshot(
            subsystem: "power_supply", sysname: "AC", syspath: "/sys/devices/LNXSYSTM:00/ACPI0003:00/power_supply/AC",
            attributes: ["type": .value("Mains"), "online": .value(online ? "1" : "0")])
    }

    public static func zone(milli: String) -> DeviceSnapshot {
        DeviceSnapshot(
            subsystem: "thermal", sysname: "thermal_zone0", syspath: "/sys/devices/virtual/thermal/thermal_zone0",
            attributes: [
                "type": .value("x86_pkg_temp"), "temp": .value(milli), "mode": .value("enabled"),
                "trip_point_0_type": .value("passive"), "trip_point_0_temp": .value("90000"),
                "trip_point_1_type": .value("critical"), "trip_point_1_temp": .value("100000"),
            ])
    }
}
