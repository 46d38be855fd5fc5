import JouleWire
import JouleHardware

/// One snapshot of everything `joule status` shows: power supplies, Low Power Mode, thermal
/// state, CPU. Built here so `joule status` and `joule watch` print the same thing.
public struct StatusReport: Sendable {
    public var supplies: PowerSupplies
    public var thermal: ThermalReadings
    public var thermalAssessment: ThermalAssessment
    public var lowPowerOverride: LowPowerOverride
    public var lowPowerMode: Bool
    /// The thermal state: the instantaneous assessment, or an engine's with hysteresis.
    public var thermalState: ThermalState
    public var warningLevel: BatteryWarningLevel
    public var cpuCores: Int?
    /// nil when no tick elapsed between the samples (a static tree) or /proc could not be read.
    public var cpuUsagePercent: Double?
    /// What enacting Low Power Mode did to each knob (the daemon's; empty when read directly).
    public var lowPowerActions: [KnobOutcome] = []
    /// Who computed this: `joule daemon` (its engines' state) or this process reading the
    /// hardware itself.
    public var source = Source.direct

    public enum Source: String, Sendable, Hashable {
        case daemon, direct
    }

    /// Low Power Mode and the warning level follow `power`'s thresholds: the snapshot a
    /// configured engine starts from says what that engine decides, computed once.
    public init(
        supplies: PowerSupplies, thermal: ThermalReadings, lowPowerOverride: LowPowerOverride,
        power: PowerStateMachine.Configuration = .init(), cpuCores: Int?, cpuUsagePercent: Double?
    ) {
        self.supplies = supplies
        self.thermal = thermal
        self.thermalAssessment = ThermalStateRule.evaluate(thermal)
        self.lowPowerOverride = lowPowerOverride
        self.lowPowerMode = power.lowPowerMode(supplies, override: lowPowerOverride)
        self.thermalState = thermalAssessment.state
        self.warningLevel = power.warningLevel(supplies.composite)
        self.cpuCores = cpuCores
        self.cpuUsagePercent = cpuUsagePercent
    }

    /// Reads devices from `source` and CPU from `procRoot`/proc/stat, with usage as `probe`
    /// measures it (`joule status`: the runtime directory's memo or a 20 ms sample, never a
    /// 0.2 s sleep; a fixture or an engine: two reads back to back). Throws when the device
    /// source cannot be read at all; an unreadable /proc/stat only makes the CPU figures null.
    public static func collect(
        source: any DeviceSource, procRoot: String, lowPowerOverride: LowPowerOverride,
        power: PowerStateMachine.Configuration = .init(), cpu probe: CPUUsageProbe = .unpaused
    ) throws(HardwareError) -> StatusReport {
        try collect(
            supplies: PowerSupplyReader(source: source), thermal: ThermalReader(source: source), procRoot: procRoot,
            lowPowerOverride: lowPowerOverride, power: power, cpu: probe)
    }

    /// As above, with readers the caller keeps (an engine reads DMI once, in its reader).
    public static func collect(
        supplies supplyReader: PowerSupplyReader, thermal thermalReader: ThermalReader, procRoot: String,
        lowPowerOverride: LowPowerOverride, power: PowerStateMachine.Configuration, cpu probe: CPUUsageProbe = .unpaused
    ) throws(HardwareError) -> StatusReport {
        let supplies = try supplyReader.read()
        let thermal = try thermalReader.read()
        let cpu = probe.measure(CPUStatReader(root: procRoot))
        return StatusReport(
            supplies: supplies, thermal: thermal, lowPowerOverride: lowPowerOverride, power: power,
            cpuCores: cpu.stat.flatMap { $0.cores > 0 ? $0.cores : nil }, cpuUsagePercent: cpu.usagePercent)
    }

    public var onBattery: Bool { supplies.onBattery }

    // MARK: JSON (the `joule status --json` contract, keys in the documented order)

    public var json: JSONObject {
        var object = JSONObject()
        object["onBattery"] = .bool(onBattery)
        object["lowPowerMode"] = .bool(lowPowerMode)
        object["thermalState"] = .string(thermalState.description)
        object["batteries"] = .array(supplies.batteries.map { .object(Self.json(battery: $0)) })
        object["peripherals"] = .array(supplies.peripherals.map { .object(Self.json(peripheral: $0)) })
        object["lineSources"] = .array(supplies.lineSources.map { .object(Self.json(line: $0)) })
        object["composite"] = supplies.composite.map { .object(Self.json(composite: $0)) } ?? .null
        object["thermalZones"] = .array(thermal.zones.map { .object(Self.json(zone: $0)) })
        object["coolingDevices"] = .array(thermal.coolingDevices.map { .object(Self.json(cooling: $0)) })
        object["hwmon"] = .array(thermal.hwmon.map { .object(Self.json(hwmon: $0)) })
        object["cpu"] = .object(["cores": .from(cpuCores), "usagePercent": .from(cpuUsagePercent, places: 1)])
        object["lowPowerActions"] = .array(lowPowerActions.map(\.json))
        object["source"] = .string(source.rawValue)
        return object
    }

    /// Wh, W and V to the mWh/mW/mV the kernel counts in; percentages to 0.1.
    static func energy(_ value: Double?) -> JSONValue { .from(value, places: 3) }
    static func percent(_ value: Double?) -> JSONValue { .from(value, places: 1) }

    static func json(battery: Battery) -> JSONObject {
        var object: JSONObject = [
            "name": .string(battery.name),
            "state": .string(battery.state.rawValue),
            "percentage": percent(battery.percentage),
            "energyWh": energy(battery.energyWh),
            "energyFullWh": energy(battery.energyFullWh),
            "energyFullDesignWh": energy(battery.energyFullDesignWh),
            "energyRateW": energy(battery.energyRateW),
            "voltageV": energy(battery.voltageV),
            "timeToEmptyS": .from(battery.timeToEmptyS),
            "timeToFullS": .from(battery.timeToFullS),
            "healthPercent": percent(battery.healthPercent),
            "cycleCount": .from(battery.cycleCount),
            "technology": .from(battery.technology),
            "model": .from(battery.model),
            "manufacturer": .from(battery.manufacturer),
            "chargeLimit": .object(json(chargeLimit: battery.chargeLimit)),
        ]
        if let error = battery.error { object["error"] = .string(error) }
        return object
    }

    /// `{"start","end","behaviour","supported":[…],"source":"firmware"|"emulated"|"none"}`.
    package static func json(chargeLimit limit: ChargeLimitReading) -> JSONObject {
        [
            "start": .from(limit.start), "end": .from(limit.end), "behaviour": .from(limit.behaviour),
            "supported": .array(limit.supported.map { .string($0) }), "source": .string(limit.source.rawValue),
        ]
    }

    static func json(peripheral: Battery) -> JSONObject {
        var object: JSONObject = [
            "name": .string(peripheral.name),
            "model": .from(peripheral.model),
            "percentage": percent(peripheral.percentage),
            "state": .string(peripheral.state.rawValue),
        ]
        if let error = peripheral.error { object["error"] = .string(error) }
        return object
    }

    static func json(line: LineSource) -> JSONObject {
        var object: JSONObject = ["name": .string(line.name), "kind": .string(line.kind), "online": .from(line.online)]
        if let error = line.error { object["error"] = .string(error) }
        return object
    }

    static func json(composite: CompositeBattery) -> JSONObject {
        [
            "percentage": percent(composite.percentage),
            "energyWh": energy(composite.energyWh),
            "energyFullWh": energy(composite.energyFullWh),
            "energyRateW": energy(composite.energyRateW),
            "state": .string(composite.state.rawValue),
            "timeToEmptyS": .from(composite.timeToEmptyS),
            "timeToFullS": .from(composite.timeToFullS),
        ]
    }

    static func json(zone: ThermalZone) -> JSONObject {
        var object: JSONObject = [
            "name": .string(zone.name),
            "type": .from(zone.type),
            "temperatureC": .from(zone.temperatureC, places: 3),
        ]
        if let error = zone.error { object["error"] = .string(error) }
        object["trips"] = .array(zone.trips.map { trip in
            .object([
                "type": .string(trip.kind.name),
                "temperatureC": .from(trip.temperatureC, places: 3),
                "hysteresisC": .from(trip.hysteresisC, places: 3),
            ])
        })
        return object
    }

    static func json(cooling: CoolingDevice) -> JSONObject {
        var object: JSONObject = [
            "name": .string(cooling.name),
            "type": .from(cooling.type),
            "curState": .from(cooling.curState),
            "maxState": .from(cooling.maxState),
        ]
        if let error = cooling.error { object["error"] = .string(error) }
        return object
    }

    static func json(hwmon sensor: HwmonSensor) -> JSONObject {
        var object: JSONObject = [
            "device": .string(sensor.device),
            "chip": .from(sensor.chip),
            "input": .string(sensor.input),
            "label": .from(sensor.label),
            "temperatureC": .from(sensor.temperatureC, places: 3),
            "maxC": .from(sensor.maxC, places: 3),
            "criticalC": .from(sensor.criticalC, places: 3),
        ]
        if let error = sensor.error { object["error"] = .string(error) }
        return object
    }
}
