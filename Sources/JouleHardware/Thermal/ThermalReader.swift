/// Reads thermal zones, cooling devices and hwmon temperatures through a `DeviceSource`
/// (libudev live, or a fixture tree), as `sensors` and the thermal sysfs ABI describe them.
public struct ThermalReader: Sendable {
    private let source: any DeviceSource

    public init(source: any DeviceSource) {
        self.source = source
    }

    /// One reading of everything thermal. Throws only when the device source itself fails;
    /// a broken sensor is reported inside the readings.
    public func read() throws(HardwareError) -> ThermalReadings {
        Self.parse(thermal: try source.devices(subsystem: "thermal"), hwmon: try source.devices(subsystem: "hwmon"))
    }

    /// Pure: builds readings from snapshots of the `thermal` and `hwmon` subsystems.
    public static func parse(thermal: [DeviceSnapshot], hwmon: [DeviceSnapshot]) -> ThermalReadings {
        let zoneDevices = thermal.filter { $0.sysname.hasPrefix("thermal_zone") }.sorted { naturalLess($0.sysname, $1.sysname) }
        let coolingDevices = thermal.filter { $0.sysname.hasPrefix("cooling_device") }.sorted { naturalLess($0.sysname, $1.sysname) }
        // The thermal core registers an hwmon device below the first zone of each type and
        // mirrors those zones into it; counting both would report every zone twice.
        let zonePaths = zoneDevices.map { $0.syspath + "/" }
        let independentHwmon = hwmon
            .filter { device in !zonePaths.contains { device.syspath.hasPrefix($0) } }
            .sorted { naturalLess($0.sysname, $1.sysname) }
        return ThermalReadings(
            zones: zoneDevices.map(zone),
            coolingDevices: coolingDevices.map(cooling),
            hwmon: independentHwmon.flatMap(hwmonSensors))
    }

    /// The attributes that change between polls: temperatures and cooling states. Trip points
    /// and names are re-read only when the poller enumerates again.
    public static func volatileAttributes(of device: DeviceSnapshot) -> [String] {
        if device.subsystem == "hwmon" { return device.attributes.keys.filter { $0.hasSuffix("_input") } }
        if device.sysname.hasPrefix("cooling_device") { return ["cur_state"] }
        return ["temp", "mode"]
    }

    static func zone(_ device: DeviceSnapshot) -> ThermalZone {
        var zone = ThermalZone(name: device.sysname, type: device.string("type"), mode: device.string("mode"))
        switch MillidegreeValue.parse(device.attributes["temp"], attribute: "temp") {
        case .success(let celsius): zone.temperatureC = celsius
        case .failure(let failure): zone.error = failure.message
        }
        let tripIndices = Set(device.attributes.keys.compactMap(tripIndex)).sorted()
        zone.trips = tripIndices.compactMap { index in
            let prefix = "trip_point_\(index)_"
            guard let type = device.string(prefix + "type"), !type.isEmpty else { return nil }
            return TripPoint(
                index: index, kind: TripPoint.Kind(type),
                temperatureC: MillidegreeValue.optional(device.attributes[prefix + "temp"], attribute: prefix + "temp"),
                hysteresisC: MillidegreeValue.optional(device.attributes[prefix + "hyst"], attribute: prefix + "hyst"))
        }
        return zone
    }

    static func cooling(_ device: DeviceSnapshot) -> CoolingDevice {
        var errors: [String] = []
        func state(_ name: String) -> Int? {
            switch device.attributes[name] {
            case .value(let text)?:
                if let value = Int(text), value >= 0 { return value }
                errors.append("\(name): not a state: \"\(text.prefix(32))\"")
            case .failed(let errno)?:
                errors.append("\(name): read failed: \(errno)")
            case nil:
                errors.append("\(name): missing")
            }
            return nil
        }
        let current = state("cur_state")
        let maximum = state("max_state")
        return CoolingDevice(
            name: device.sysname, type: device.string("type"), curState: current, maxState: maximum,
            error: errors.isEmpty ? nil : errors.joined(separator: "; "))
    }

    static func hwmonSensors(_ device: DeviceSnapshot) -> [HwmonSensor] {
        let inputs = Set(device.attributes.keys.compactMap { key -> Int? in
            guard key.hasPrefix("temp"), key.hasSuffix("_input") else { return nil }
            return Int(key.dropFirst(4).dropLast(6))
        }).sorted()
        return inputs.map { index in
            let input = "temp\(index)"
            var sensor = HwmonSensor(
                device: device.sysname, chip: device.string("name"), input: input,
                label: device.string(input + "_label"), temperatureC: nil,
                maxC: MillidegreeValue.optional(device.attributes[input + "_max"], attribute: input + "_max"),
                criticalC: MillidegreeValue.optional(device.attributes[input + "_crit"], attribute: input + "_crit"),
                error: nil)
            switch MillidegreeValue.parse(device.attributes[input + "_input"], attribute: input + "_input") {
            case .success(let celsius): sensor.temperatureC = celsius
            case .failure(let failure): sensor.error = failure.message
            }
            return sensor
        }
    }

    /// N from `trip_point_N_type`.
    private static func tripIndex(_ attribute: String) -> Int? {
        guard attribute.hasPrefix("trip_point_"), attribute.hasSuffix("_type") else { return nil }
        return Int(attribute.dropFirst("trip_point_".count).dropLast("_type".count))
    }
}

/// Orders `thermal_zone2` before `thermal_zone10`.
func naturalLess(_ a: String, _ b: String) -> Bool {
    let aPrefix = a.prefix { !$0.isNumber }, bPrefix = b.prefix { !$0.isNumber }
    if aPrefix == bPrefix, let aNumber = Int(a.dropFirst(aPrefix.count)), let bNumber = Int(b.dropFirst(bPrefix.count)) {
        return aNumber < bNumber
    }
    return a < b
}
