import JouleWire
import JouleHardware

/// One change the engines announce, as `joule watch` prints it and the Swift API delivers it.
public enum EnergyEvent: Sendable, Hashable {
    /// Low Power Mode turned on or off. Reasons: `battery-low`, `charged`, `manual-on`,
    /// `manual-off`, `override-cleared`, and in the daemon `power-saver-profile` /
    /// `power-saver-profile-left` (the user chose or left power-profiles-daemon's power-saver).
    case powerStateDidChange(lowPowerMode: Bool, reason: String)
    case thermalStateDidChange(state: ThermalState, previous: ThermalState, cause: String?)
    /// A battery's state or whole-percent level changed.
    case batteryChanged(BatteryUpdate)
    case lineChanged(name: String, online: Bool?)
    case powerSourceAdded(name: String, kind: PowerSourceKind)
    case powerSourceRemoved(name: String, kind: PowerSourceKind)
    case warningLevelChanged(level: BatteryWarningLevel, previous: BatteryWarningLevel)

    /// The event's name in JSON and in `JOULE_EVENT`.
    public var name: String {
        switch self {
        case .powerStateDidChange: "powerStateDidChange"
        case .thermalStateDidChange: "thermalStateDidChange"
        case .batteryChanged: "batteryChanged"
        case .lineChanged: "lineChanged"
        case .powerSourceAdded: "powerSourceAdded"
        case .powerSourceRemoved: "powerSourceRemoved"
        case .warningLevelChanged: "warningLevelChanged"
        }
    }

    /// The event's own fields, in order, after `timestamp` and `event`.
    public var fields: JSONObject {
        var object = JSONObject()
        switch self {
        case .powerStateDidChange(let lowPowerMode, let reason):
            object["lowPowerMode"] = .bool(lowPowerMode)
            object["reason"] = .string(reason)
        case .thermalStateDidChange(let state, let previous, let cause):
            object["state"] = .string(state.description)
            object["previous"] = .string(previous.description)
            object["cause"] = .from(cause)
        case .batteryChanged(let update):
            object["name"] = .string(update.name)
            object["kind"] = .string(update.kind.rawValue)
            object["state"] = .string(update.state.rawValue)
            object["percentage"] = .from(update.percentage, places: 2)
            object["energyRateW"] = .from(update.energyRateW, places: 3)
            object["timeToEmptyS"] = .from(update.timeToEmptyS)
            object["timeToFullS"] = .from(update.timeToFullS)
        case .lineChanged(let name, let online):
            object["name"] = .string(name)
            object["online"] = .from(online)
        case .powerSourceAdded(let name, let kind), .powerSourceRemoved(let name, let kind):
            object["name"] = .string(name)
            object["kind"] = .string(kind.rawValue)
        case .warningLevelChanged(let level, let previous):
            object["warningLevel"] = .string(level.rawValue)
            object["previous"] = .string(previous.rawValue)
        }
        return object
    }
}

/// What kind of power_supply device an event is about.
public enum PowerSourceKind: String, Sendable, Hashable {
    case battery, peripheral, line
}

/// A battery's values as announced by `batteryChanged`, with smoothed time estimates.
public struct BatteryUpdate: Sendable, Hashable {
    public var name: String
    public var kind: PowerSourceKind
    public var state: PowerSupplyState
    public var percentage: Double?
    public var energyRateW: Double?
    public var timeToEmptyS: Int?
    public var timeToFullS: Int?

    public init(
        name: String, kind: PowerSourceKind, state: PowerSupplyState, percentage: Double?,
        energyRateW: Double?, timeToEmptyS: Int?, timeToFullS: Int?
    ) {
        self.name = name
        self.kind = kind
        self.state = state
        self.percentage = percentage
        self.energyRateW = energyRateW
        self.timeToEmptyS = timeToEmptyS
        self.timeToFullS = timeToFullS
    }
}

/// An event with the wall-clock time it was observed and the states it left behind.
public struct TimedEvent: Sendable, Hashable {
    public var timestamp: Double
    public var event: EnergyEvent
    /// Low Power Mode and thermal state after the event, for `--exec` hooks that want both.
    public var lowPowerMode: Bool
    public var thermalState: ThermalState

    public init(timestamp: Double, event: EnergyEvent, lowPowerMode: Bool, thermalState: ThermalState) {
        self.timestamp = timestamp
        self.event = event
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
    }

    /// `{"timestamp":…,"event":"…",…}`, one `joule watch --json` line.
    public var json: JSONObject {
        var object: JSONObject = ["timestamp": .from(timestamp, places: 3), "event": .string(event.name)]
        for (key, value) in event.fields.entries { object[key] = value }
        return object
    }

    /// The event as environment variables for `--exec`: `JOULE_EVENT`, `JOULE_TIMESTAMP`,
    /// `JOULE_LOW_POWER` (1 or 0) and `JOULE_THERMAL_STATE` always, then each field as
    /// `JOULE_<UPPER_SNAKE>` (`warningLevel` → `JOULE_WARNING_LEVEL`).
    public var environment: [String: String] {
        var environment = HookEnvironment(event: event.name, timestamp: String(timestamp))
        environment.set("lowPower", .int(lowPowerMode ? 1 : 0))
        environment.set("thermalState", .string(thermalState.description))
        for (key, value) in event.fields.entries { environment.set(key, value) }
        return environment.variables
    }
}
