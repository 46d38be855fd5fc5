import JouleHardware

/// A battery's embedded controller as tests need it: attributes with values, and the quirks
/// real firmware has (values it refuses, thresholds it checks against each other, writes it
/// accepts and ignores, files it will not open), recording every write in order.
final class FirmwareChargeControl: ChargeControlFiles, @unchecked Sendable {
    let battery = "BAT0"
    var values: [ChargeAttribute: String]
    /// End values the firmware takes (nil: any 1-100).
    var acceptedEnds: Set<Int>?
    /// Refuses a start at or above the end, and an end at or below the start (EINVAL).
    var checksOrder = false
    /// Refuses an end write until a start was written since the last end (EINVAL).
    var wantsStartFirst = false
    /// Accepts writes and keeps the old value.
    var ignoresWrites = false
    /// Every write fails with this.
    var refusal: Errno?
    private(set) var writes: [String] = []
    private var startWritten = false

    init(_ values: [ChargeAttribute: String]) { self.values = values }

    func location(of attribute: ChargeAttribute) -> String { "/sys/class/power_supply/BAT0/\(attribute.rawValue)" }

    func read(_ attribute: ChargeAttribute) throws(HardwareError) -> String? { values[attribute] }

    func write(_ attribute: ChargeAttribute, _ value: String) throws(HardwareError) {
        let refuse = { (errno: Errno) -> HardwareError in HardwareError(operation: "write", path: self.location(of: attribute), errno: errno) }
        if let refusal { throw refuse(refusal) }
        guard values[attribute] != nil else { throw refuse(.noEntry) }
        switch attribute {
        case .start, .end:
            guard let number = Int(value) else { throw refuse(.invalid) }
            let start = values[.start].flatMap { Int($0.trimmingSpaces) }, end = values[.end].flatMap { Int($0.trimmingSpaces) }
            if attribute == .end {
                if let acceptedEnds, !acceptedEnds.contains(number) { throw refuse(.invalid) }
                if checksOrder, let start, number <= start { throw refuse(.invalid) }
                if wantsStartFirst, !startWritten { throw refuse(.invalid) }
                startWritten = false
            } else {
                if checksOrder, let end, number >= end { throw refuse(.invalid) }
                startWritten = true
            }
            writes.append("\(attribute.rawValue)=\(value)")
            if !ignoresWrites { values[attribute] = value + "\n" }
        case .behaviour, .types:
            let words = (values[attribute] ?? "").split(separator: " ").map { $0.filter { $0 != "[" && $0 != "]" && $0 != "\n" } }
            guard words.contains(value) else { throw refuse(.invalid) }
            writes.append("\(attribute.rawValue)=\(value)")
            if !ignoresWrites { values[attribute] = words.map { $0 == value ? "[\($0)]" : $0 }.joined(separator: " ") + "\n" }
        }
    }
}

extension String {
    var trimmingSpaces: String { String(filter { $0 != " " && $0 != "\n" }) }
}
