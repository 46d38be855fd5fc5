/// HCI command status codes Joule reacts to.
public enum HCIStatus {
    public static let success: UInt8 = 0x00
    public static let unknownCommand: UInt8 = 0x01
    public static let commandDisallowed: UInt8 = 0x0C
    public static let unsupportedFeature: UInt8 = 0x11

    /// A readable name for a status byte.
    public static func name(_ status: UInt8) -> String {
        switch status {
        case 0x00: "Success"
        case 0x01: "Unknown HCI Command"
        case 0x02: "Unknown Connection Identifier"
        case 0x03: "Hardware Failure"
        case 0x0C: "Command Disallowed"
        case 0x11: "Unsupported Feature or Parameter Value"
        case 0x12: "Invalid HCI Command Parameters"
        default: "status 0x" + String(status, radix: 16)
        }
    }
}
