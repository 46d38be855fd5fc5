/// What an HCI packet in a capture or on the socket is.
public enum HCIPacketType: UInt8, Sendable {
    case command = 0x01
    case aclData = 0x02
    case scoData = 0x03
    case event = 0x04
    case isoData = 0x05
    /// Monitor records that are not HCI traffic (index added, system notes…), and
    /// unknown H4 types.
    case other = 0xFF
}
