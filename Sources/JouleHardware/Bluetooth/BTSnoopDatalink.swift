/// The btsnoop datalink types Joule reads (and, for `.h4`, writes).
public enum BTSnoopDatalink: UInt32, Sendable {
    /// Raw HCI without a packet type byte; the record flags say command/event/data.
    case hciUnencapsulated = 1001
    /// HCI UART (H4): each record starts with the packet type byte. Android writes this.
    case h4 = 1002
    /// BlueZ monitor (`btmon -w`): the flags carry the adapter index and a monitor opcode.
    case linuxMonitor = 2001
}
