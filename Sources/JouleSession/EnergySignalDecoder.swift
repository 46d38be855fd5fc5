import JouleWire
import JouleHardware

/// org.joule.Energy1's signals as the session agent's events: `PowerStateDidChange(b, s)`,
/// `ThermalStateDidChange(s, s, s)`, `CPUMonitorViolation(a{sv})` with action kill,
/// `SleepFlagged(a{sv})`, and
/// `PropertiesChanged` carrying `WarningLevel` (with
/// `Percentage` when it changed too). Pure; a malformed signal is no event.
public enum EnergySignalDecoder {
    /// The match rule for everything decoded here.
    public static let rule = "type='signal',sender='\(EnergyBus.busName)',path='\(EnergyBus.objectPath)'"

    public static func decode(_ signal: BusSignalMessage) -> [SessionEvent] {
        let arguments = signal.arguments.map(\.unwrapped)
        switch (signal.interface, signal.member) {
        case (EnergyBus.interfaceName, "PowerStateDidChange"):
            guard arguments.count >= 2, let on = arguments[0].boolValue, let reason = arguments[1].stringValue else { return [] }
            return [.lowPowerMode(on: on, reason: reason)]
        case (EnergyBus.interfaceName, "CPUMonitorViolation"):
            // Only a kill is news for the user; a report or a throttle is the log's.
            guard let fields = arguments.first?.stringKeyedEntries.map({ Dictionary($0, uniquingKeysWith: { $1 }) }),
                  fields["action"]?.stringValue == "kill", let process = fields["process"]?.stringValue,
                  let report = fields["report"]?.stringValue
            else { return [] }
            return [.cpuMonitorKill(process: process, reportID: report)]
        case (EnergyBus.interfaceName, "SleepFlagged"):
            guard let fields = arguments.first?.stringKeyedEntries.map({ Dictionary($0, uniquingKeysWith: { $1 }) }),
                  let start = fields["start"]?.doubleValue, let summary = fields["summary"]?.stringValue
            else { return [] }
            return [.sleepDrained(start: start, summary: summary)]
        case (EnergyBus.interfaceName, "ThermalStateDidChange"):
            guard let state = arguments.first?.stringValue else { return [] }
            return [.thermalState(state)]
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard arguments.count >= 2, arguments[0].stringValue == EnergyBus.interfaceName,
                  let changed = arguments[1].stringKeyedEntries,
                  let level = changed.first(where: { $0.0 == "WarningLevel" })?.1.unwrapped.stringValue
            else { return [] }
            let percentage = changed.first(where: { $0.0 == "Percentage" })?.1.unwrapped.doubleValue
            return [.warningLevel(level, percentage: percentage)]
        default:
            return []
        }
    }
}
