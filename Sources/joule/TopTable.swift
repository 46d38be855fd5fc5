#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleHardware
import JouleEnergy

/// The human-readable `joule top`, like top's header over Activity Monitor's Energy tab: where
/// the power figure comes from (and why better sources were passed over), how it splits, then
/// one row per process or unit, `-` wherever a value is unknown.
enum TopTable {
    /// The view's lines. `rows` bounds the table's rows and `columns` each line's width (a
    /// terminal's size); nil for all of them (a pipe gets the whole table).
    static func render(
        _ sample: ProcessEnergySample, order: ProcessEnergy.Order, byUnit: Bool, interval: Double,
        rows: Int? = nil, columns: Int? = nil
    ) -> [String] {
        let time = ClockTime.text(sample.timestamp)
        var lines = ["joule top  \(time)  every \(StatusTable.format(interval, places: interval.rounded() == interval ? 0 : 2)) s  sorted by \(order.rawValue)"]
        let source = sample.source
        if source.kind == .model {
            lines.append("power   model: nothing measures power here; Energy Impact = CPU % + \(EnergyImpact.wakeupWeight) × wakeups/s")
        } else {
            var power = "power   \(source.kind.rawValue) (\(source.origin)): \(watts(sample.systemWatts))"
            if let active = sample.activeWatts, let idle = sample.idleWatts {
                let processes = active - (sample.unattributedWatts ?? 0)
                power += " = processes \(watts(processes)) + unattributed \(watts(sample.unattributedWatts)) + idle \(watts(idle))"
            }
            lines.append(power)
        }
        if !source.passedOver.isEmpty { lines.append("passed  " + source.passedOver.joined(separator: "; ")) }
        lines.append("cpu     \(sample.nodeCPUPercent.map { StatusTable.format($0, places: 1) + " %" } ?? "-") of all cores busy, \(sample.processes.count) processes")
        lines.append("")

        let entries = ProcessEnergy.sorted(byUnit ? sample.units : sample.processes, by: order)
        let header = byUnit
            ? ["UNIT", "PROCS", "CPU %", "WAKEUPS/S", "POWER W", "ENERGY J", "IMPACT"]
            : ["PID", "NAME", "UNIT", "CPU %", "WAKEUPS/S", "POWER W", "ENERGY J", "IMPACT"]
        let shown = rows.map { Array(entries.prefix(max(0, $0 - lines.count - 1))) } ?? entries
        let table = [header] + shown.map { entry -> [String] in
            let numbers = [
                StatusTable.format(entry.cpuPercent, places: 1), number(entry.wakeupsPerSecond, places: 1),
                number(entry.watts, places: 3), number(entry.joules, places: 2), number(entry.energyImpact, places: 1),
            ]
            // A kernel thread's name can be 63 bytes and a unit 255: the numbers matter more.
            return byUnit
                ? [clip(entry.name, 40), "\(entry.processCount)"] + numbers
                : ["\(entry.pid ?? 0)", clip(entry.name, 20), clip(entry.unit ?? "-", 32)] + numbers
        }
        // Names are left-aligned; numbers right-aligned, as in top.
        let textColumns: Set<Int> = byUnit ? [0] : [1, 2]
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            let cells = row.indices.map { column -> String in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return textColumns.contains(column) ? row[column] + padding : padding + row[column]
            }
            lines.append(cells.joined(separator: "  "))
        }
        guard let columns else { return lines }
        return lines.map { $0.count > columns ? String($0.prefix(columns)) : $0 }
    }

    private static func clip(_ text: String, _ width: Int) -> String {
        text.count > width ? String(text.prefix(width - 1)) + "…" : text
    }

    private static func watts(_ value: Double?) -> String {
        value.map { StatusTable.format($0, places: 3) + " W" } ?? "unknown"
    }

    private static func number(_ value: Double?, places: Int) -> String {
        value.map { StatusTable.format($0, places: places) } ?? "-"
    }
}
