import JouleHardware
import JouleEnergy
import JouleWorkloads

/// Human-readable beacon output.
enum BeaconText {
    /// `2023-11-14 23:13:20.25` from Unix µs: local time, as every text output shows times
    /// (JSON keeps UTC), with the fraction as the UTC text writes it.
    static func time(_ micros: Int64) -> String {
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return ClockTime.dateTime(Double(seconds)) + UTCTime.fractionText(micros - seconds * 1_000_000)
    }

    static func number(_ value: Double?, _ suffix: String = "") -> String {
        guard let value, value.isFinite else { return "-" }
        return String((value * 100).rounded() / 100) + suffix
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func printTable(_ rows: [BeaconTable.Row], at when: Int64) {
        Console.out("\(time(when)): \(rows.count) beacon(s)")
        guard !rows.isEmpty else { return }
        Console.out(pad("KIND", 14) + pad("RSSI", 9) + pad("DISTANCE", 10) + pad("PROXIMITY", 11) + pad("ADDRESS", 19) + "IDENTITY")
        for row in rows {
            Console.out(
                pad(row.kind, 14) + pad(number(row.rssi), 9) + pad(number(row.accuracyM, " m"), 10)
                    + pad(row.proximity.rawValue, 11) + pad(row.address, 19) + row.identity)
        }
    }

    static func printRanging(_ rows: [RangedBeacon], at when: Int64) {
        Console.out("\(time(when)): \(rows.count) beacon(s) in range")
        for row in rows {
            Console.out(
                "  " + pad(row.region, 12) + " " + pad(row.key.description, 50)
                    + pad(number(row.rssi, " dBm"), 12) + pad(number(row.accuracyM, " m"), 10) + row.proximity.rawValue)
        }
    }
}
