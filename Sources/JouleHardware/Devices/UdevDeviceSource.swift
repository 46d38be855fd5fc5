/// The live device source: libudev, enumerating by subsystem. Each call opens and closes its
/// own udev context on the calling thread (see `UdevGateway`), so the source is a plain value.
public struct UdevDeviceSource: DeviceSource {
    public init() {}

    public func devices(subsystem: String) throws(HardwareError) -> [DeviceSnapshot] {
        try UdevGateway.devices(subsystem: subsystem)
    }

    public func refresh(_ device: DeviceSnapshot, attributes: [String]) -> DeviceSnapshot? {
        UdevGateway.refresh(device, attributes: attributes)
    }
}

extension UdevDeviceSource {
    public func monitor(subsystems: [String]) throws(HardwareError) -> UdevMonitor? {
        try UdevMonitor(subsystems: subsystems)
    }
}
