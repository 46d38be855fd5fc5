import JouleHardware

/// A battery's embedded controller as tests need it: attributes with values, and the quirks
/// real firmware has (values it refuses, thresholds it checks against each other, writes it
/// accepts and ignores, files it will not open), recording every write in order.
public final class FirmwareChargeControl: ChargeControlFiles, @unchecked Sendable {
    public let battery: String
    public var values: [ChargeAttribute: String]
    /// End values the firmware takes (nil: any 1-100).
    public var acceptedEnds: Set<Int>?
    /// Refuses a start at or above the end, and an end at or below the start (EINVAL).
    public var checksOrder = false
    /// Refuses an end write until a start was written since the last end (EINVAL).
    public var wantsStartFirst = false
    /// Accepts writes and keeps the old value.
    public var ignoresWrites = false
    /// Every write fails with this.
    public var refusal: Errno?
    public private(set) var writes: [String] = []
    private var startWritten = false

    public init(_ values: [ChargeAttribute: String], battery: String = "BAT0") {
        self.values = values
        self.battery = battery
    }

    public func location(of attribute: ChargeAttribute) -> String { "/sys/class/power_supply/\(battery)/\(attribute.rawValue)" }

    public func read(_ attribute: ChargeAttribute) throws(HardwareError) -> String? { values[attribute] }

    public func write(_ attribute: ChargeAttribute, _ value: String) throws(HardwareError) {
        let refuse = { (errno: Errno) -> HardwareError in HardwareError(operation: "write", path: self.location(of: attribute), errno: errno) }
        if let refusal { throw refuse(refusal) }
        guard values[attribute] != nil else { throw refuse(.noEntry) }
        switch attribute {
        case .start, .end:
            guard let number = Int(value) else { throw refuse(.invalid) }
            let start = values[.start].flatMap { Int($0.withoutSpaces) }, end = values[.end].flatMap { Int($0.withoutSpaces) }
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
    var withoutSpaces: String { String(filter { $0 != " " && $0 != "\n" }) }
}
