import JouleWire
import JouleHardware
import JouleEnergy

extension HistoryTimeline {
    /// `joule history --json` and `GetHistory`: the range, where it came from, the sensors
    /// with their labels, the rows, the markers and the sleeps, oldest first; unknown values are null.
    package var json: JSONValue {
        let sensors = self.sensors
        let labels = Dictionary(sensors.map { ($0.sensor, $0.label) }, uniquingKeysWith: { a, _ in a })
        return .object([
            "since": .from(since, places: 3), "until": .from(until, places: 3), "source": .string(source.rawValue),
            "database": .from(database),
            "sensors": .array(sensors.map { .object(["sensor": .string($0.sensor), "label": .from($0.label)]) }),
            "samples": .array(samples.map { Self.json($0, labels: labels) }),
            "entries": .array(entries.map(Self.json)),
            "sleeps": .array(sleeps.map(Self.json)),
        ])
    }

    /// Issue 36's keys, times in Unix seconds as the rows', and `flagged` (`SleepRecord.isFlagged`).
    static func json(_ sleep: SleepRecord) -> JSONValue {
        .object([
            "start": .from(sleep.start, places: 3), "end": .from(sleep.end, places: 3),
            "energyBeforeWh": .from(sleep.energyBeforeWh, places: 3), "energyAfterWh": .from(sleep.energyAfterWh, places: 3),
            "drainPercentPerHour": .from(sleep.drainPercentPerHour, places: 3), "drainW": .from(sleep.drainW, places: 3),
            "wakeReason": .from(sleep.wakeReason), "mode": .from(sleep.mode), "flagged": .bool(sleep.isFlagged),
        ])
    }

    static func json(_ sample: HistorySample, labels: [String: String?]) -> JSONValue {
        var temperatures = JSONObject()
        for reading in sample.temperatures { temperatures[reading.sensor] = .from(reading.celsius, places: 2) }
        return .object([
            "timestamp": .from(sample.timestamp, places: 3), "trigger": .string(sample.trigger.rawValue),
            "spanS": .from(sample.span), "percentage": .from(sample.percentage, places: 2),
            "chargeState": .from(sample.chargeState?.rawValue), "energyRateW": .from(sample.energyRateW, places: 3),
            "powerW": .from(sample.powerW, places: 3), "powerSource": .from(sample.powerSource),
            "lineOnline": .from(sample.lineOnline), "lowPowerMode": .bool(sample.lowPowerMode),
            "lowPowerModeSource": .string(sample.lowPowerModeSource.rawValue),
            "lowPowerModeReason": .from(sample.lowPowerModeReason), "thermalState": .string(sample.thermalState.description),
            "temperatures": .object(temperatures),
        ])
    }

    static func json(_ entry: HistoryEntry) -> JSONValue {
        .object([
            "timestamp": .from(entry.timestamp, places: 3), "kind": .string(entry.kind.rawValue), "id": .string(entry.id),
            "subtype": .string(entry.subtype), "subject": .string(entry.subject), "detail": .from(entry.detail),
            "pid": .from(entry.pid), "bytes": entry.bytes.map { .int(Int($0)) } ?? .null,
            "ownerUID": entry.ownerUID.map { .int(Int($0)) } ?? .null,
        ])
    }

    /// Reads back `json` (a daemon's `GetHistory` reply). Every key is required with its
    /// contract type, null where allowed; unknown keys are ignored. A bad key is named as
    /// `samples[3].thermalState`. `sleeps` alone may be missing: a daemon older than issue 36
    /// has none to send, and its reply still reads.
    package init(json text: String) throws(JSONDecodingError) {
        try self.init(json: JSONObjectReader.parse(text))
    }

    package init(json value: JSONValue) throws(JSONDecodingError) {
        guard case .object(let object) = value else {
            throw JSONDecodingError(key: "", message: "expected a history object, got \(JSONObjectReader.clip(value))")
        }
        let root = JSONObjectReader(object: object, prefix: "")
        let sensors = try root.required("sensors", "an array", \.arrayValue)
        var labels: [String: String?] = [:]
        for (index, item) in sensors.enumerated() {
            let reader = try Self.reader(item, "sensors[\(index)]")
            labels[try reader.required("sensor", "a string", \.stringValue)] = .some(try reader.optional("label", "a string", \.stringValue))
        }
        var samples: [HistorySample] = []
        for (index, item) in try root.required("samples", "an array", \.arrayValue).enumerated() {
            samples.append(try Self.sample(Self.reader(item, "samples[\(index)]"), labels: labels))
        }
        var entries: [HistoryEntry] = []
        for (index, item) in try root.required("entries", "an array", \.arrayValue).enumerated() {
            entries.append(try Self.entry(Self.reader(item, "entries[\(index)]")))
        }
        var sleeps: [SleepRecord] = []
        if object["sleeps"] != nil {
            for (index, item) in try root.required("sleeps", "an array", \.arrayValue).enumerated() {
                sleeps.append(try Self.sleep(Self.reader(item, "sleeps[\(index)]")))
            }
        }
        self.init(
            since: try root.required("since", "Unix seconds", \.doubleValue),
            until: try root.required("until", "Unix seconds", \.doubleValue),
            source: try root.required("source", "daemon or file") { $0.stringValue.flatMap(Source.init(rawValue:)) },
            database: try root.optional("database", "a path", \.stringValue), samples: samples, entries: entries, sleeps: sleeps)
    }

    /// `flagged` must be a boolean but is not kept: the record derives it from its drain.
    private static func sleep(_ reader: JSONObjectReader) throws(JSONDecodingError) -> SleepRecord {
        let start = try reader.required("start", "Unix seconds", \.doubleValue)
        let end = try reader.required("end", "Unix seconds not before start (\(JSONValue.from(start, places: 3).serialized))") { value in
            value.doubleValue.flatMap { $0 >= start ? $0 : nil }
        }
        let record = SleepRecord(
            start: start, end: end, energyBeforeWh: try reader.optional("energyBeforeWh", "watt-hours", \.doubleValue),
            energyAfterWh: try reader.optional("energyAfterWh", "watt-hours", \.doubleValue),
            drainPercentPerHour: try reader.optional("drainPercentPerHour", "percent per hour", \.doubleValue),
            drainW: try reader.optional("drainW", "watts", \.doubleValue),
            wakeReason: try reader.optional("wakeReason", "a string", \.stringValue),
            mode: try reader.optional("mode", "a mem_sleep mode", \.stringValue))
        _ = try reader.required("flagged", "true or false", \.boolValue)
        return record
    }

    private static func reader(_ value: JSONValue, _ key: String) throws(JSONDecodingError) -> JSONObjectReader {
        guard case .object(let object) = value else {
            throw JSONDecodingError(key: key, message: "expected an object, got \(JSONObjectReader.clip(value))")
        }
        return JSONObjectReader(object: object, prefix: key + ".")
    }

    private static func sample(_ reader: JSONObjectReader, labels: [String: String?]) throws(JSONDecodingError) -> HistorySample {
        func word<T>(_ key: String, _ parse: (String) -> T?, _ expected: [String]) throws(JSONDecodingError) -> T {
            try reader.required(key, "one of " + expected.joined(separator: ", ")) { $0.stringValue.flatMap(parse) }
        }
        let states = PowerSupplyState.allCases.map(\.rawValue)
        let temperatures = try reader.required("temperatures", "an object of sensor: °C") { value -> JSONObject? in
            if case .object(let object) = value { object } else { nil }
        }
        var readings: [HistoryTemperature] = []
        for (sensor, value) in temperatures.entries {
            guard value.isNull || value.doubleValue != nil else {
                throw reader.failure("temperatures.\(sensor)", expected: "°C or null", got: value)
            }
            readings.append(HistoryTemperature(sensor: sensor, label: labels[sensor] ?? nil, celsius: value.doubleValue))
        }
        return HistorySample(
            timestamp: try reader.required("timestamp", "Unix seconds", \.doubleValue),
            trigger: try word("trigger", HistoryTrigger.init(rawValue:), HistoryTrigger.allCases.map(\.rawValue)),
            span: try reader.optional("spanS", "seconds", \.doubleValue),
            percentage: try reader.optional("percentage", "a percentage", \.doubleValue),
            chargeState: try reader.optional("chargeState", "one of " + states.joined(separator: ", ")) {
                $0.stringValue.flatMap(PowerSupplyState.init(rawValue:))
            },
            energyRateW: try reader.optional("energyRateW", "watts", \.doubleValue),
            powerW: try reader.optional("powerW", "watts", \.doubleValue),
            powerSource: try reader.optional("powerSource", "a string", \.stringValue),
            lineOnline: try reader.optional("lineOnline", "true or false", \.boolValue),
            lowPowerMode: try reader.required("lowPowerMode", "true or false", \.boolValue),
            lowPowerModeSource: try word(
                "lowPowerModeSource", LowPowerModeSource.init(rawValue:), LowPowerModeSource.allCases.map(\.rawValue)),
            lowPowerModeReason: try reader.optional("lowPowerModeReason", "a string", \.stringValue),
            thermalState: try word("thermalState", ThermalState.init(name:), ThermalState.allCases.map(\.description)),
            temperatures: readings)
    }

    private static func entry(_ reader: JSONObjectReader) throws(JSONDecodingError) -> HistoryEntry {
        HistoryEntry(
            timestamp: try reader.required("timestamp", "Unix seconds", \.doubleValue),
            kind: try reader.required("kind", "report or transfer") { $0.stringValue.flatMap(HistoryEntry.Kind.init(rawValue:)) },
            id: try reader.required("id", "a string", \.stringValue),
            subtype: try reader.required("subtype", "a string", \.stringValue),
            subject: try reader.required("subject", "a string", \.stringValue),
            detail: try reader.optional("detail", "a string", \.stringValue),
            pid: try reader.optional("pid", "an integer", \.intValue),
            bytes: try reader.optional("bytes", "a count of bytes", JSONObjectReader.count),
            ownerUID: try reader.optional("ownerUID", "a uid") { $0.intValue.flatMap { UInt32(exactly: $0) } })
    }
}
