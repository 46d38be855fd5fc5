/// An HCI command as Joule sends it: OGF, OCF and parameter bytes. The scan commands are
/// built here as bytes, including the extended ones libbluetooth has no structs for.
public struct HCICommand: Sendable, Hashable, CustomStringConvertible {
    public var ogf: UInt8
    public var ocf: UInt16
    public var parameters: [UInt8]

    public init(ogf: UInt8, ocf: UInt16, parameters: [UInt8]) {
        self.ogf = ogf
        self.ocf = ocf
        self.parameters = parameters
    }

    public var opcode: UInt16 { UInt16(ogf) << 10 | ocf }

    static let leOGF: UInt8 = 0x08

    /// LE Set Scan Parameters (0x000B): type (0 passive, 1 active), interval, window (0.625 ms
    /// slots, little-endian), own address type 0 (public), filter policy 0 (accept all).
    public static func setScanParameters(active: Bool, intervalSlots: UInt16, windowSlots: UInt16) -> HCICommand {
        HCICommand(
            ogf: leOGF, ocf: 0x000B,
            parameters: [active ? 1 : 0] + le16(intervalSlots) + le16(windowSlots) + [0x00, 0x00])
    }

    /// LE Set Scan Enable (0x000C).
    public static func setScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(ogf: leOGF, ocf: 0x000C, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// LE Set Extended Scan Parameters (0x0041) on the LE 1M PHY: own address type,
    /// filter policy, PHY mask 0x01, then type, interval and window for that PHY.
    public static func setExtendedScanParameters(active: Bool, intervalSlots: UInt16, windowSlots: UInt16) -> HCICommand {
        HCICommand(
            ogf: leOGF, ocf: 0x0041,
            parameters: [0x00, 0x00, 0x01, active ? 1 : 0] + le16(intervalSlots) + le16(windowSlots))
    }

    /// LE Set Extended Scan Enable (0x0042): enable, filter duplicates, duration 0 and
    /// period 0 (scan until disabled).
    public static func setExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(ogf: leOGF, ocf: 0x0042, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0])
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }

    /// The command's name, for logs and test failures.
    public var name: String {
        switch (ogf, ocf) {
        case (Self.leOGF, 0x000B): "LE Set Scan Parameters"
        case (Self.leOGF, 0x000C): "LE Set Scan Enable"
        case (Self.leOGF, 0x0041): "LE Set Extended Scan Parameters"
        case (Self.leOGF, 0x0042): "LE Set Extended Scan Enable"
        default: String(format16: opcode)
        }
    }

    public var description: String {
        "\(name) [\(parameters.map { String(format8: $0) }.joined(separator: " "))]"
    }
}

extension String {
    init(format16 value: UInt16) {
        let hex = String(value, radix: 16)
        self = "0x" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
    }

    init(format8 value: UInt8) {
        let hex = String(value, radix: 16)
        self = hex.count == 1 ? "0" + hex : hex
    }
}
