import CBluetooth

#if canImport(Glibc)
import Glibc
#endif

/// The one place where Joule calls libbluetooth (and the HCI socket options). Every failure
/// becomes an `HCITransportError` that says what to do about it.
public enum BluetoothGateway {
    /// An adapter chosen for scanning.
    struct Adapter: Sendable {
        public var id: Int32
        public var name: String
    }

    /// Opaque copy of a socket's `struct hci_filter`, to restore on stop.
    struct SocketFilter: Sendable {
        var typeMask: UInt32
        var eventMask: (UInt32, UInt32)
        var opcode: UInt16
    }

    static func error(_ operation: String, _ errno: Errno, adapter: String = "") -> HCITransportError {
        switch errno.rawValue {
        case EPERM, EACCES: .permissionDenied(operation: operation)
        case EAFNOSUPPORT, EPROTONOSUPPORT: .noBluetoothSupport
        case ENODEV: adapter.isEmpty ? .noAdapter(detail: "\(operation): \(errno)") : .adapterNotFound(adapter)
        case ENETDOWN: .adapterDown(adapter.isEmpty ? "hci?" : adapter)
        default: .system(HardwareError(operation: operation, path: adapter.isEmpty ? "hci" : adapter, errno: errno))
        }
    }

    /// Finds the adapter: `name` (e.g. "hci0") when given, else the first one that is up and
    /// supports LE. socket(AF_BLUETOOTH) is probed first so a kernel without Bluetooth is
    /// reported as such rather than as "no adapter".
    static func findAdapter(named name: String?) throws(HCITransportError) -> Adapter {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard probe >= 0 else { throw error("socket(AF_BLUETOOTH)", .current) }
        Glibc.close(probe)

        if let name {
            let id = hci_devid(name)
            guard id >= 0 else {
                let e = Errno.current
                if e.rawValue == ENODEV || e.rawValue == EINVAL || e.rawValue == 0 { throw .adapterNotFound(name) }
                throw error("hci_devid", e, adapter: name)
            }
            var info = hci_dev_info()
            guard hci_devinfo(id, &info) == 0 else { throw error("hci_devinfo", .current, adapter: name) }
            guard hci_test_bit(Int32(HCI_UP), &info.flags) != 0 else { throw .adapterDown(name) }
            return Adapter(id: id, name: name)
        }

        var downLE: String?
        var seen = 0
        for id in 0..<Int32(HCI_MAX_DEV) {
            var info = hci_dev_info()
            guard hci_devinfo(id, &info) == 0 else {
                let e = Errno.current
                if e.rawValue == ENODEV { continue }
                throw error("hci_devinfo", e)
            }
            seen += 1
            let deviceName = "hci\(id)"
            guard info.features.4 & UInt8(LMP_LE) != 0 else { continue }
            guard hci_test_bit(Int32(HCI_UP), &info.flags) != 0 else {
                downLE = downLE ?? deviceName
                continue
            }
            return Adapter(id: id, name: deviceName)
        }
        if let downLE { throw .adapterDown(downLE) }
        throw .noAdapter(detail: seen == 0 ? "no HCI device" : "\(seen) HCI device(s), none with LE")
    }

    /// hci_open_dev: a raw HCI socket bound to the adapter.
    static func open(_ adapter: Adapter) throws(HCITransportError) -> Int32 {
        let fd = hci_open_dev(adapter.id)
        guard fd >= 0 else { throw error("hci_open_dev(\(adapter.name))", .current, adapter: adapter.name) }
        return fd
    }

    /// getsockopt(HCI_FILTER): the socket's filter before Joule changed it.
    static func currentFilter(_ fd: Int32, adapter: String) throws(HCITransportError) -> SocketFilter {
        var filter = hci_filter()
        var length = socklen_t(MemoryLayout<hci_filter>.size)
        guard getsockopt(fd, SOL_HCI, HCI_FILTER, &filter, &length) == 0 else {
            throw error("getsockopt(HCI_FILTER)", .current, adapter: adapter)
        }
        return SocketFilter(
            typeMask: filter.type_mask, eventMask: (filter.event_mask.0, filter.event_mask.1), opcode: filter.opcode)
    }

    /// setsockopt(HCI_FILTER) to event packets: LE Meta, Command Complete/Status, Hardware Error.
    static func setScanFilter(_ fd: Int32, adapter: String) throws(HCITransportError) {
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        hci_filter_set_event(EVT_CMD_COMPLETE, &filter)
        hci_filter_set_event(EVT_CMD_STATUS, &filter)
        hci_filter_set_event(EVT_HARDWARE_ERROR, &filter)
        guard setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw error("setsockopt(HCI_FILTER)", .current, adapter: adapter)
        }
    }

    /// setsockopt(HCI_FILTER) back to what `currentFilter` saved. Best effort: on stop the
    /// socket may already be dead.
    static func restoreFilter(_ fd: Int32, _ saved: SocketFilter) {
        var filter = hci_filter()
        filter.type_mask = saved.typeMask
        filter.event_mask = saved.eventMask
        filter.opcode = saved.opcode
        _ = setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size))
    }

    /// write(2) of one H4 command packet (`01`, opcode, length, parameters), as hci_send_cmd
    /// would; the completion arrives as an event on the socket.
    static func send(_ fd: Int32, _ command: HCICommand, adapter: String) throws(HCITransportError) {
        let opcode = command.opcode
        let packet: [UInt8] =
            [HCIPacketType.command.rawValue, UInt8(truncatingIfNeeded: opcode), UInt8(truncatingIfNeeded: opcode >> 8),
             UInt8(truncatingIfNeeded: command.parameters.count)] + command.parameters
        while true {
            let written = packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written == packet.count { return }
            let e = Errno.current
            if written < 0, e == .interrupted { continue }
            throw error("write(HCI command \(command.name))", written < 0 ? e : .ioError, adapter: adapter)
        }
    }

    /// What `wait` found.
    struct Readiness {
        var socket = false
        var wake = false
    }

    /// poll(2) on the HCI socket and the wake pipe for at most `timeoutMs` (-1: no limit).
    /// The socket counts as ready on error or hang-up too, so `read` reports it. EINTR is
    /// nothing ready; the caller recomputes its deadline and waits again.
    static func wait(socket: Int32, wake: Int32, timeoutMs: Int32) -> Readiness {
        var entries = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let n = poll(&entries, 2, timeoutMs)
        guard n > 0 else { return Readiness() }
        return Readiness(socket: entries[0].revents != 0, wake: entries[1].revents != 0)
    }

    /// read(2) one packet from the HCI socket: the byte count (0 when nothing was pending,
    /// EAGAIN/EINTR), or the errno that says the adapter is gone (end of file counts as EPIPE).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, HardwareError> {
        let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return .success(n) }
        if n == 0 { return .failure(HardwareError(operation: "read", path: "hci", errno: .brokenPipe)) }
        let e = Errno.current
        if e == .interrupted || e == .tryAgain { return .success(0) }
        return .failure(HardwareError(operation: "read", path: "hci", errno: e))
    }

    /// hci_close_dev.
    static func close(_ fd: Int32) { _ = hci_close_dev(fd) }

    /// close(2) of a descriptor that is not an HCI socket (the wake pipe, a test's socket).
    static func closeDescriptor(_ fd: Int32) { _ = Glibc.close(fd) }
}

extension Errno {
    /// EPIPE: what the kernel gives a socket whose adapter was unregistered.
    static let brokenPipe = Errno(EPIPE)
}
