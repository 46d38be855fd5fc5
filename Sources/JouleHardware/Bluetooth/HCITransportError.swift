/// Failures of an HCI transport, each with the message a user needs.
public enum HCITransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// EPERM/EACCES on the raw HCI socket.
    case permissionDenied(operation: String)
    /// EAFNOSUPPORT: no Bluetooth in this kernel.
    case noBluetoothSupport
    /// No adapter at all, or none with LE.
    case noAdapter(detail: String)
    case adapterNotFound(String)
    /// The adapter exists but is down.
    case adapterDown(String)
    /// The adapter disappeared (unplugged, rfkill) while scanning.
    case adapterGone(String, Errno)
    /// The controller answered a command with an error status.
    case commandFailed(command: String, status: UInt8)
    /// No Command Complete/Status arrived in time.
    case commandTimeout(command: String)
    /// The controller's answer to a command did not decode (e.g. no status byte).
    case malformedAnswer(command: String, DecodeError)
    case system(HardwareError)
    /// A replay file could not be opened.
    case capture(String)
    /// `--transport bluez` without bluetoothd on the system bus (the detail says what was found).
    case bluetoothdMissing(String)
    /// bluetoothd left the bus while joule scanned or monitored through it.
    case bluetoothdGone(String)
    /// bluetoothd refused or failed a D-Bus call (StartDiscovery, RegisterMonitor…).
    case bluez(operation: String, detail: String)
    /// A command was handed to a transport that sends none (BlueZ drives the radio itself).
    case noRawCommands(command: String)

    public var description: String {
        switch self {
        case .permissionDenied(let operation):
            "\(operation): permission denied. Raw HCI access needs root, or grant the binary the capabilities: sudo setcap cap_net_raw,cap_net_admin+eip $(command -v joule)"
        case .noBluetoothSupport:
            "this kernel has no Bluetooth support (socket(AF_BLUETOOTH): EAFNOSUPPORT); load the bluetooth module or use --replay FILE"
        case .noAdapter(let detail): "no Bluetooth LE adapter found (\(detail)); plug one in, or use --replay FILE"
        case .adapterNotFound(let name): "no Bluetooth adapter named \(name) (see `hciconfig` or `bluetoothctl list`)"
        case .adapterDown(let name): "adapter \(name) is down; power it on (`bluetoothctl power on` or `hciconfig \(name) up`)"
        case .adapterGone(let name, let errno): "adapter \(name) went away while scanning (\(errno)); scanning stopped"
        case .commandFailed(let command, let status):
            "the controller refused \(command): \(HCIStatus.name(status)) (0x\(String(format8: status)))"
        case .commandTimeout(let command): "the controller did not answer \(command) within 2 s"
        case .malformedAnswer(let command, let error): "the controller's answer to \(command) is malformed: \(error)"
        case .system(let error): "\(error)"
        case .capture(let text): text
        case .bluetoothdMissing(let detail):
            "bluetoothd is not on the system bus (\(detail)); start it (`systemctl start bluetooth`) or use --transport hci"
        case .bluetoothdGone(let adapter): "bluetoothd left the system bus while scanning with \(adapter); scanning stopped"
        case .bluez(let operation, let detail): "bluetoothd: \(operation): \(detail)"
        case .noRawCommands(let command): "the BlueZ transport sends no HCI commands (asked for \(command))"
        }
    }
}
