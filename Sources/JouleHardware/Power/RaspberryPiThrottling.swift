/// The Raspberry Pi firmware's throttling flags, as `vcgencmd get_throttled` and the kernel's
/// `get_throttled` file give them. Bits 0–3 say what holds now, bits 16–19 what has happened
/// since boot (Raspberry Pi's `vcgencmd` documentation); other bits are reserved and only kept
/// in `bits`.
public struct RaspberryPiThrottling: Sendable, Hashable {
    /// One condition; its raw value is its "now" bit, and 16 above it is its "since boot" bit.
    public enum Condition: Int, Sendable, CaseIterable {
        /// The supply has dropped below about 4.63 V.
        case underVoltage = 0
        /// The ARM core's frequency is capped (by temperature or voltage).
        case armFrequencyCapped = 1
        /// The firmware is throttling the SoC.
        case throttled = 2
        /// The soft temperature limit (60 °C by default on the 3B+ and later) is reached.
        case softTemperatureLimit = 3

        /// The `reason` label: `under_voltage`, `arm_frequency_capped`, `throttled`, `soft_temp_limit`.
        public var label: String {
            switch self {
            case .underVoltage: "under_voltage"
            case .armFrequencyCapped: "arm_frequency_capped"
            case .throttled: "throttled"
            case .softTemperatureLimit: "soft_temp_limit"
            }
        }
    }

    public var bits: UInt32

    public init(bits: UInt32) { self.bits = bits }

    public func isActive(_ condition: Condition) -> Bool { bits & (1 << UInt32(condition.rawValue)) != 0 }

    public func hasOccurred(_ condition: Condition) -> Bool { bits & (1 << UInt32(condition.rawValue + 16)) != 0 }

    /// The driver prints the 32-bit value with `%x` (no `0x`); `vcgencmd` prints `0x50005`.
    /// Both are taken; anything else is nil.
    public static func parse(_ text: String) -> RaspberryPiThrottling? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard (1...8).contains(digits.utf8.count), digits.allSatisfy({ $0.isASCII && $0.isHexDigit }), let bits = UInt32(digits, radix: 16)
        else { return nil }
        return RaspberryPiThrottling(bits: bits)
    }
}
