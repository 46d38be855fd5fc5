import CUdev

#if canImport(Glibc)
import Glibc
#endif

/// The one place where the hardware layer calls libudev.
///
/// libudev objects are not thread-safe (libudev(3)): every call here creates its context,
/// uses it and releases it before returning, on the calling thread, and hands back plain
/// `DeviceSnapshot` values. No libudev pointer escapes this file.
public enum UdevGateway {
    /// Every device of `subsystem`, sorted by sysname, read through libudev.
    /// Under umockdev (`UMOCKDEV_DIR`, `LD_PRELOAD=libumockdev-preload.so.0`) libudev reads
    /// the redirected /sys, which is how the tests run this path on fixture trees.
    static func devices(subsystem: String) throws(HardwareError) -> [DeviceSnapshot] {
        guard let udev = udev_new() else {
            throw HardwareError(operation: "udev_new", path: "/sys", errno: .current)
        }
        defer { udev_unref(udev) }
        guard let enumerate = udev_enumerate_new(udev) else {
            throw HardwareError(operation: "udev_enumerate_new", path: "/sys/class/\(subsystem)", errno: .current)
        }
        defer { udev_enumerate_unref(enumerate) }

        var status = udev_enumerate_add_match_subsystem(enumerate, subsystem)
        guard status >= 0 else {
            throw HardwareError(
                operation: "udev_enumerate_add_match_subsystem", path: "/sys/class/\(subsystem)", errno: Errno(-status))
        }
        status = udev_enumerate_scan_devices(enumerate)
        guard status >= 0 else {
            throw HardwareError(
                operation: "udev_enumerate_scan_devices", path: "/sys/class/\(subsystem)", errno: Errno(-status))
        }

        var syspaths: [String] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) { syspaths.append(String(cString: name)) }
            entry = udev_list_entry_get_next(current)
        }

        var snapshots: [DeviceSnapshot] = []
        for syspath in syspaths {
            // A device that vanished between the scan and now is simply not listed.
            guard let device = udev_device_new_from_syspath(udev, syspath) else { continue }
            defer { udev_device_unref(device) }
            if let snapshot = snapshot(of: device, fallbackSubsystem: subsystem) {
                snapshots.append(snapshot)
            }
        }
        return snapshots.sorted { $0.sysname < $1.sysname }
    }

    /// Copies one udev device into a value: names, properties and readable sysattrs.
    private static func snapshot(of device: OpaquePointer, fallbackSubsystem: String) -> DeviceSnapshot? {
        guard let sysnamePointer = udev_device_get_sysname(device),
            let syspathPointer = udev_device_get_syspath(device)
        else { return nil }
        let syspath = String(cString: syspathPointer)
        let subsystem = udev_device_get_subsystem(device).map { String(cString: $0) } ?? fallbackSubsystem

        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                let value = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
                properties[String(cString: name)] = value
            }
            entry = udev_list_entry_get_next(current)
        }

        var names: [String] = []
        entry = udev_device_get_sysattr_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) { names.append(String(cString: name)) }
            entry = udev_list_entry_get_next(current)
        }
        names += DeviceAttributePolicy.unreadableNames(in: syspath, besides: names)

        var attributes: [String: AttributeRead] = [:]
        for name in names where DeviceAttributePolicy.isCandidateName(name) {
            let path = syspath + "/" + name
            switch DeviceAttributePolicy.classify(path) {
            case .skip:
                continue
            case .dangling(let failure):
                attributes[name] = .failed(failure)
            case .read:
                errno = 0
                if let value = udev_device_get_sysattr_value(device, name) {
                    attributes[name] = .value(DeviceAttributePolicy.text(String(cString: value)))
                } else {
                    let failure = errno == 0 ? Errno.ioError : Errno.current
                    attributes[name] = .failed(failure)
                }
            }
        }
        return DeviceSnapshot(
            subsystem: subsystem, sysname: String(cString: sysnamePointer), syspath: syspath,
            properties: properties, attributes: attributes)
    }
}

// MARK: monitor

extension UdevGateway {
    /// Runs a udev monitor for `subsystems` on the calling thread until `stopFD` turns readable
    /// or fails, calling `ready` once listening and `onEvent` for every uevent. Blocks: call it
    /// from a thread of its own, which then owns every libudev object it creates.
    static func runMonitor(
        subsystems: [String], stopFD: Int32, ready: () -> Void, onEvent: (DeviceEvent) -> Void
    ) throws(HardwareError) {
        guard let udev = udev_new() else {
            throw HardwareError(operation: "udev_new", path: "netlink:udev", errno: .current)
        }
        defer { udev_unref(udev) }
        // The "udev" group carries events after udevd has processed them, as UPower listens.
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            throw HardwareError(operation: "udev_monitor_new_from_netlink", path: "netlink:udev", errno: .current)
        }
        defer { udev_monitor_unref(monitor) }
        for subsystem in subsystems {
            let status = udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil)
            guard status >= 0 else {
                throw HardwareError(operation: "udev_monitor_filter_add_match_subsystem_devtype", path: subsystem, errno: Errno(-status))
            }
        }
        let status = udev_monitor_enable_receiving(monitor)
        guard status >= 0 else {
            throw HardwareError(operation: "udev_monitor_enable_receiving", path: "netlink:udev", errno: Errno(-status))
        }
        let monitorFD = udev_monitor_get_fd(monitor)
        ready()

        var fds = [pollfd(fd: monitorFD, events: Int16(POLLIN), revents: 0), pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let count = poll(&fds, nfds_t(fds.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                throw HardwareError(operation: "poll", path: "netlink:udev", errno: .current)
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw HardwareError(operation: "poll", path: "netlink:udev", detail: "monitor socket closed")
            }
            // The socket is non-blocking: drain every queued event.
            while let device = udev_monitor_receive_device(monitor) {
                defer { udev_device_unref(device) }
                let event = DeviceEvent(
                    action: udev_device_get_action(device).map { String(cString: $0) } ?? "change",
                    subsystem: udev_device_get_subsystem(device).map { String(cString: $0) } ?? "",
                    sysname: udev_device_get_sysname(device).map { String(cString: $0) } ?? "",
                    syspath: udev_device_get_syspath(device).map { String(cString: $0) } ?? "")
                onEvent(event)
            }
        }
    }
}

// MARK: refresh

extension UdevGateway {
    /// Re-reads `attributes` of a known device through a fresh udev device object (libudev
    /// caches values per object), on the calling thread. nil when the device is gone.
    static func refresh(_ snapshot: DeviceSnapshot, attributes: [String]) -> DeviceSnapshot? {
        guard let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let device = udev_device_new_from_syspath(udev, snapshot.syspath) else { return nil }
        defer { udev_device_unref(device) }
        var snapshot = snapshot
        for name in attributes {
            errno = 0
            if let value = udev_device_get_sysattr_value(device, name) {
                snapshot.attributes[name] = .value(DeviceAttributePolicy.text(String(cString: value)))
            } else {
                snapshot.attributes[name] = .failed(errno == 0 ? Errno.noEntry : Errno.current)
            }
        }
        return snapshot
    }
}
