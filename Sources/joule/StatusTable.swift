import JouleHardware
import JouleEnergy
import JouleClient

/// The human-readable `joule status`, laid out like `upower -d` and `sensors`:
/// one block per device, `unknown` wherever the hardware gave no value.
enum StatusTable {
    /// What only a daemon's snapshot adds: its properties and where it was found.
    struct Daemon {
        var state: EnergyBusState
        var bus: DaemonClient.Bus
    }

    /// The table; `daemon` adds the Low Power Mode source, the daemon line and the knob
    /// actions (a direct reading has none of them, and its table stays as it was).
    static func render(_ report: StatusReport, daemon: Daemon? = nil) -> String {
        var lines: [String] = []
        var report = report
        let supplies = report.supplies
        var lowPowerHow = report.lowPowerOverride == .auto ? "auto" : "forced \(report.lowPowerOverride.rawValue)"
        if let daemon {
            lowPowerHow = daemon.state.source.rawValue
            // The daemon's thresholds decide the level; the JSON does not carry it.
            report.warningLevel = daemon.state.warningLevel
        }
        lines.append("System")
        if let daemon { lines.append(row("source", "joule daemon (\(daemon.bus.rawValue) bus)")) }
        lines.append(row("on battery", report.onBattery ? "yes" : "no"))
        lines.append(row("low power mode", "\(report.lowPowerMode ? "on" : "off") (\(lowPowerHow))"))
        var thermal = report.thermalState.description
        if let cause = report.thermalAssessment.cause { thermal += " (\(cause))" }
        lines.append(row("thermal state", thermal))
        lines.append(row("cpu", "\(report.cpuCores.map(String.init) ?? "unknown") cores, \(percent(report.cpuUsagePercent)) busy"))

        if daemon != nil, !report.lowPowerActions.isEmpty {
            lines.append("")
            lines.append("Low Power Mode actions")
            for action in report.lowPowerActions {
                lines.append(row(action.knob, "\(action.original ?? "unknown") -> \(action.written), \(action.state)  (\(action.path))"))
            }
        }

        if let composite = supplies.composite {
            lines.append("")
            lines.append("Composite battery")
            lines.append(row("state", composite.state.rawValue))
            lines.append(row("percentage", percent(composite.percentage)))
            lines.append(row("energy", "\(number(composite.energyWh, "Wh")) of \(number(composite.energyFullWh, "Wh"))"))
            lines.append(row("energy rate", number(composite.energyRateW, "W")))
            if composite.state == .discharging { lines.append(row("time to empty", duration(composite.timeToEmptyS))) }
            if composite.state == .charging { lines.append(row("time to full", duration(composite.timeToFullS))) }
            if report.warningLevel != .none { lines.append(row("warning level", report.warningLevel.rawValue)) }
        }

        for battery in supplies.batteries {
            lines.append("")
            lines.append("\(battery.isUPS ? "UPS" : "Battery") \(battery.name)")
            lines.append(row("state", battery.state.rawValue))
            lines.append(row("percentage", percent(battery.percentage)))
            lines.append(row("energy", number(battery.energyWh, "Wh")))
            lines.append(row("energy full", number(battery.energyFullWh, "Wh")))
            lines.append(row("energy full design", number(battery.energyFullDesignWh, "Wh")))
            lines.append(row("energy rate", number(battery.energyRateW, "W")))
            lines.append(row("voltage", number(battery.voltageV, "V")))
            lines.append(row("time to empty", duration(battery.timeToEmptyS)))
            lines.append(row("time to full", duration(battery.timeToFullS)))
            lines.append(row("health", percent(battery.healthPercent)))
            lines.append(row("cycle count", battery.cycleCount.map(String.init) ?? "unknown"))
            lines.append(row("technology", battery.technology ?? "unknown"))
            lines.append(row("model", battery.model ?? "unknown"))
            lines.append(row("manufacturer", battery.manufacturer ?? "unknown"))
            lines.append(row("charge limit", chargeLimit(battery.chargeLimit)))
            if let error = battery.error { lines.append(row("error", error)) }
        }

        for peripheral in supplies.peripherals {
            lines.append("")
            lines.append("Peripheral \(peripheral.name)")
            lines.append(row("model", peripheral.model ?? "unknown"))
            lines.append(row("state", peripheral.state.rawValue))
            lines.append(row("percentage", percent(peripheral.percentage)))
            if let error = peripheral.error { lines.append(row("error", error)) }
        }

        if !supplies.lineSources.isEmpty {
            lines.append("")
            lines.append("Line power")
            for source in supplies.lineSources {
                let online = source.online.map { $0 ? "online" : "offline" } ?? "unknown"
                lines.append(row(source.name, "\(source.kind), \(online)" + (source.error.map { "  [\($0)]" } ?? "")))
            }
        }

        if !report.thermal.zones.isEmpty {
            lines.append("")
            lines.append("Thermal zones")
            for zone in report.thermal.zones {
                var text = "\(celsius(zone.temperatureC))  \(zone.type ?? "unknown type")"
                if zone.mode == "disabled" { text += ", disabled" }
                let trips = zone.trips.map { "\($0.kind.name) \(celsius($0.temperatureC))" }
                if !trips.isEmpty { text += "  (" + trips.joined(separator: ", ") + ")" }
                if let error = zone.error { text += "  [\(error)]" }
                lines.append(row(zone.name, text))
            }
        }

        if !report.thermal.coolingDevices.isEmpty {
            lines.append("")
            lines.append("Cooling devices")
            for device in report.thermal.coolingDevices {
                let state = "\(device.curState.map(String.init) ?? "?")/\(device.maxState.map(String.init) ?? "?")"
                var text = "\(device.type ?? "unknown type"), state \(state)"
                if let error = device.error { text += "  [\(error)]" }
                lines.append(row(device.name, text))
            }
        }

        if !report.thermal.hwmon.isEmpty {
            lines.append("")
            lines.append("Sensors (hwmon)")
            for sensor in report.thermal.hwmon {
                var text = celsius(sensor.temperatureC)
                let label = [sensor.chip, sensor.label].compactMap { $0 }.joined(separator: " ")
                if !label.isEmpty { text += "  \(label)" }
                if let error = sensor.error { text += "  [\(error)]" }
                lines.append(row(sensor.name, text))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func row(_ label: String, _ value: String) -> String {
        let padded = label.count < 20 ? label + String(repeating: " ", count: 20 - label.count) : label + " "
        return "  " + padded + value
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "unknown" }
        return format(value, places: 1) + " %"
    }

    static func number(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "unknown" }
        return format(value, places: 3) + " " + unit
    }

    static func celsius(_ value: Double?) -> String {
        guard let value else { return "unknown" }
        return format(value, places: 1) + " °C"
    }

    /// `2 h 05 min`, or `unknown`.
    static func duration(_ seconds: Int?) -> String {
        guard let seconds else { return "unknown" }
        let minutes = (seconds + 30) / 60
        let hours = minutes / 60
        let rest = minutes % 60
        return hours > 0 ? "\(hours) h \(rest < 10 ? "0" : "")\(rest) min" : "\(rest) min"
    }

    /// Fixed decimals without Foundation.
    static func format(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "unknown" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 1e15 else { return String(value) }
        let integer = Int(scaled)
        let whole = integer / Int(scale)
        let fraction = integer % Int(scale)
        var text = (value < 0 && integer != 0 ? "-" : "") + String(whole)
        if places > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: places - digits.count) + digits
        }
        return text
    }

    /// `75–80 % (firmware)`, `off (supports end, auto, inhibit-charge)`, `not supported`.
    static func chargeLimit(_ limit: ChargeLimitReading) -> String {
        guard !limit.supported.isEmpty else { return "not supported" }
        let supports = "supports " + limit.supported.joined(separator: ", ")
        guard limit.source != .none else { return "off (\(supports))" }
        let range = (limit.start.map { "\($0)" } ?? "?") + "–" + (limit.end.map { "\($0)" } ?? "?") + " %"
        return "\(range) (\(limit.source.rawValue)" + (limit.behaviour.map { ", \($0)" } ?? "") + ")"
    }
}
