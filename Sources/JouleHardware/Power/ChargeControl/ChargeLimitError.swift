/// Why a charge limit was refused or did not hold, naming the value and the file.
public enum ChargeLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    case unparsable(String)
    case outOfRange(name: String, value: Int, range: String)
    case outOfOrder(start: Int, end: Int)
    /// The battery has no way to do what was asked (no threshold, no `inhibit-charge`).
    case unsupported(battery: String, what: String)
    /// The kernel refused a write; `held` is what the battery reads after it.
    case writeRefused(location: String, value: String, error: HardwareError, held: ChargeControlState)

    public var description: String {
        switch self {
        case .unparsable(let text): "charge limit must be END, START-END or off (percentages), not '\(text)'"
        case .outOfRange(let name, let value, let range): "charge limit \(name) must be \(range) %, not \(value)"
        case .outOfOrder(let start, let end): "charge limit start (\(start)) must be below its end (\(end))"
        case .unsupported(let battery, let what): "\(battery): \(what)"
        case .writeRefused(let location, let value, let error, _):
            "\(location): the kernel refused '\(value)'" + (error.errno.map { ": \($0)" } ?? ": \(error)")
        }
    }
}
