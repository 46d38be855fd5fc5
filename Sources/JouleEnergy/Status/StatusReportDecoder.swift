import JouleWire
import JouleHardware

extension StatusReport {
    /// Reads back what `json` wrote (a daemon's `GetStatus`): every key is required with its
    /// contract type, numbers may be null where `json` writes null, and keys it does not know
    /// are ignored. What the JSON does not carry stays empty: battery syspaths, UPS-ness, zone
    /// modes, the override (`auto`) and the thermal cause. The warning level
    /// follows the default thresholds; a daemon's is its `WarningLevel` property.
    public init(json text: String) throws(StatusReportDecodingError) {
        try self.init(json: JSONObjectReader.parse(text))
    }

    public init(json value: JSONValue) throws(StatusReportDecodingError) {
        self = try StatusReportDecoder.report(StatusReportDecoder.Field(value, key: ""))
    }
}

/// The strict reader behind `StatusReport(json:)`, one function per object of the contract.
enum StatusReportDecoder {
    /// A value with the path that led to it, for errors.
    struct Field {
        let value: JSONValue
        let key: String

        init(_ value: JSONValue, key: String) {
            self.value = value
            self.key = key
        }

        func fail(_ message: String) -> StatusReportDecodingError { StatusReportDecodingError(key: key, message: message) }

        func object() throws(StatusReportDecodingError) -> JSONObject {
            guard case .object(let object) = value else { throw fail("expected an object, got \(value.serialized)") }
            return object
        }

        subscript(name: String) -> Field {
            get throws(StatusReportDecodingError) {
                let object = try object()
                let path = key.isEmpty ? name : "\(key).\(name)"
                guard let value = object[name] else { throw StatusReportDecodingError(key: path, message: "missing") }
                return Field(value, key: path)
            }
        }

        func array() throws(StatusReportDecodingError) -> [Field] {
            guard case .array(let items) = value else { throw fail("expected an array, got \(value.serialized)") }
            return items.enumerated().map { Field($0.element, key: "\(key)[\($0.offset)]") }
        }

        func string() throws(StatusReportDecodingError) -> String {
            guard let text = value.stringValue else { throw fail("expected a string, got \(value.serialized)") }
            return text
        }

        func bool() throws(StatusReportDecodingError) -> Bool {
            guard let flag = value.boolValue else { throw fail("expected true or false, got \(value.serialized)") }
            return flag
        }

        var isNull: Bool { value.isNull }

        func optionalString() throws(StatusReportDecodingError) -> String? { isNull ? nil : try string() }

        /// A key written only when it has something to say (`error`): absent is nil.
        func absentOrString(_ name: String) throws(StatusReportDecodingError) -> String? {
            try object()[name] == nil ? nil : try self[name].string()
        }
        func optionalBool() throws(StatusReportDecodingError) -> Bool? { isNull ? nil : try bool() }

        func optionalDouble() throws(StatusReportDecodingError) -> Double? {
            if isNull { return nil }
            guard let number = value.doubleValue else { throw fail("expected a number or null, got \(value.serialized)") }
            return number
        }

        func optionalInt() throws(StatusReportDecodingError) -> Int? {
            if isNull { return nil }
            guard let number = value.intValue else { throw fail("expected an integer or null, got \(value.serialized)") }
            return number
        }

        /// A string that must be one of a closed set of words.
        func word<T>(_ parse: (String) -> T?, _ expected: String) throws(StatusReportDecodingError) -> T {
            let text = try string()
            guard let parsed = parse(text) else { throw fail("expected \(expected), got \"\(text)\"") }
            return parsed
        }
    }

    static let supplyStates = "one of " + PowerSupplyState.allCases.map(\.rawValue).joined(separator: ", ")

    static func report(_ root: Field) throws(StatusReportDecodingError) -> StatusReport {
        _ = try root.object()
        var batteries: [Battery] = []
        for field in try root["batteries"].array() { batteries.append(try battery(field)) }
        var peripherals: [Battery] = []
        for field in try root["peripherals"].array() { peripherals.append(try peripheral(field)) }
        var lines: [LineSource] = []
        for field in try root["lineSources"].array() {
            lines.append(LineSource(
                name: try field["name"].string(), syspath: "", kind: try field["kind"].string(),
                online: try field["online"].optionalBool(), error: try field.absentOrString("error")))
        }
        let compositeField = try root["composite"]
        let composite = compositeField.isNull ? nil : try self.composite(compositeField)
        let supplies = PowerSupplies(batteries: batteries, peripherals: peripherals, lineSources: lines, composite: composite)

        var zones: [ThermalZone] = []
        for field in try root["thermalZones"].array() { zones.append(try zone(field)) }
        var cooling: [CoolingDevice] = []
        for field in try root["coolingDevices"].array() {
            cooling.append(CoolingDevice(
                name: try field["name"].string(), type: try field["type"].optionalString(),
                curState: try field["curState"].optionalInt(), maxState: try field["maxState"].optionalInt(),
                error: try field.absentOrString("error")))
        }
        // Added after the first release of the contract: a daemon that predates it sends none.
        var hwmon: [HwmonSensor] = []
        if try root.object()["hwmon"] != nil {
            for field in try root["hwmon"].array() { hwmon.append(try sensor(field)) }
        }
        let cpu = try root["cpu"]
        var report = StatusReport(
            supplies: supplies, thermal: ThermalReadings(zones: zones, coolingDevices: cooling, hwmon: hwmon), lowPowerOverride: .auto,
            cpuCores: try cpu["cores"].optionalInt(), cpuUsagePercent: try cpu["usagePercent"].optionalDouble())

        let onBattery = try root["onBattery"]
        if try onBattery.bool() != supplies.onBattery {
            throw onBattery.fail("\(!supplies.onBattery) disagrees with the batteries and line sources")
        }
        report.lowPowerMode = try root["lowPowerMode"].bool()
        let thermalState = try root["thermalState"].word(ThermalState.init(name:), "nominal, fair, serious or critical")
        report.thermalState = thermalState
        // The sender's state has hysteresis this process cannot see: no cause is claimed.
        report.thermalAssessment = ThermalAssessment(state: thermalState, cause: nil, votes: [])
        var actions: [KnobOutcome] = []
        for field in try root["lowPowerActions"].array() { actions.append(try action(field)) }
        report.lowPowerActions = actions
        report.source = try root["source"].word(StatusReport.Source.init(rawValue:), "daemon or direct")
        return report
    }

    static func battery(_ field: Field) throws(StatusReportDecodingError) -> Battery {
        var battery = Battery(
            name: try field["name"].string(), syspath: "",
            state: try field["state"].word(PowerSupplyState.init(rawValue:), supplyStates))
        battery.percentage = try field["percentage"].optionalDouble()
        battery.energyWh = try field["energyWh"].optionalDouble()
        battery.energyFullWh = try field["energyFullWh"].optionalDouble()
        battery.energyFullDesignWh = try field["energyFullDesignWh"].optionalDouble()
        battery.energyRateW = try field["energyRateW"].optionalDouble()
        battery.voltageV = try field["voltageV"].optionalDouble()
        battery.timeToEmptyS = try field["timeToEmptyS"].optionalInt()
        battery.timeToFullS = try field["timeToFullS"].optionalInt()
        battery.healthPercent = try field["healthPercent"].optionalDouble()
        battery.cycleCount = try field["cycleCount"].optionalInt()
        battery.technology = try field["technology"].optionalString()
        battery.model = try field["model"].optionalString()
        battery.manufacturer = try field["manufacturer"].optionalString()
        battery.chargeLimit = try chargeLimit(try field["chargeLimit"])
        battery.error = try field.absentOrString("error")
        return battery
    }

    static func chargeLimit(_ field: Field) throws(StatusReportDecodingError) -> ChargeLimitReading {
        var supported: [String] = []
        for item in try field["supported"].array() { supported.append(try item.string()) }
        return ChargeLimitReading(
            start: try field["start"].optionalInt(), end: try field["end"].optionalInt(),
            behaviour: try field["behaviour"].optionalString(), supported: supported,
            source: try field["source"].word(ChargeLimitSource.init(rawValue:), "firmware, emulated or none"))
    }

    static func peripheral(_ field: Field) throws(StatusReportDecodingError) -> Battery {
        var peripheral = Battery(
            name: try field["name"].string(), syspath: "", isPeripheral: true,
            state: try field["state"].word(PowerSupplyState.init(rawValue:), supplyStates))
        peripheral.model = try field["model"].optionalString()
        peripheral.percentage = try field["percentage"].optionalDouble()
        peripheral.error = try field.absentOrString("error")
        return peripheral
    }

    static func sensor(_ field: Field) throws(StatusReportDecodingError) -> HwmonSensor {
        HwmonSensor(
            device: try field["device"].string(), chip: try field["chip"].optionalString(), input: try field["input"].string(),
            label: try field["label"].optionalString(), temperatureC: try field["temperatureC"].optionalDouble(),
            maxC: try field["maxC"].optionalDouble(), criticalC: try field["criticalC"].optionalDouble(),
            error: try field.absentOrString("error"))
    }

    static func composite(_ field: Field) throws(StatusReportDecodingError) -> CompositeBattery {
        CompositeBattery(
            percentage: try field["percentage"].optionalDouble(), energyWh: try field["energyWh"].optionalDouble(),
            energyFullWh: try field["energyFullWh"].optionalDouble(), energyRateW: try field["energyRateW"].optionalDouble(),
            state: try field["state"].word(PowerSupplyState.init(rawValue:), supplyStates),
            timeToEmptyS: try field["timeToEmptyS"].optionalInt(), timeToFullS: try field["timeToFullS"].optionalInt())
    }

    static func zone(_ field: Field) throws(StatusReportDecodingError) -> ThermalZone {
        var trips: [TripPoint] = []
        for (index, trip) in try field["trips"].array().enumerated() {
            trips.append(TripPoint(
                index: index, kind: TripPoint.Kind(try trip["type"].string()),
                temperatureC: try trip["temperatureC"].optionalDouble(), hysteresisC: try trip["hysteresisC"].optionalDouble()))
        }
        return ThermalZone(
            name: try field["name"].string(), type: try field["type"].optionalString(),
            temperatureC: try field["temperatureC"].optionalDouble(), error: try field.absentOrString("error"), trips: trips)
    }

    static func action(_ field: Field) throws(StatusReportDecodingError) -> KnobOutcome {
        let state = try field["state"].word(knobState, "applied, restored, foreign or failed: REASON")
        return KnobOutcome(
            knob: try field["knob"].string(), path: try field["path"].string(), original: try field["original"].optionalString(),
            written: try field["written"].string(), state: state)
    }

    static func knobState(_ text: String) -> KnobState? {
        switch text {
        case "applied": .applied
        case "restored": .restored
        case "foreign": .foreign
        default: text.hasPrefix("failed: ") ? .failed(String(text.dropFirst("failed: ".count))) : nil
        }
    }
}
