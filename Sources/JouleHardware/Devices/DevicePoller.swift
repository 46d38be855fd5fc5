/// Keeps the devices of one subsystem between polls and re-reads only the attributes that
/// change, so a poll costs a few reads instead of a full enumeration (readdir, stat and read
/// of every attribute of every device). An energy tool polling once a second must be cheap.
///
/// It enumerates in full on the first read, when asked to (a uevent), when the subsystem's
/// members changed (fixture trees; libudev reports that by uevent), when a device vanished,
/// and every `rescanInterval` so new attributes and quiet changes are still seen.
public struct DevicePoller: Sendable {
    public let subsystem: String
    public var rescanInterval: Duration
    private let volatile: @Sendable (DeviceSnapshot) -> [String]
    private var devices: [DeviceSnapshot]?
    private var members: [String]?
    private var lastScan = -Double.infinity

    /// - Parameter volatile: the attributes of a device that may change between polls.
    public init(subsystem: String, rescanInterval: Duration = .seconds(60), volatile: @escaping @Sendable (DeviceSnapshot) -> [String]) {
        self.subsystem = subsystem
        self.rescanInterval = rescanInterval
        self.volatile = volatile
    }

    /// Enumerate in full on the next read.
    public mutating func invalidate() {
        devices = nil
    }

    public mutating func read(from source: any DeviceSource, at time: Double) throws(HardwareError) -> [DeviceSnapshot] {
        let currentMembers = source.memberNames(subsystem: subsystem)
        if let devices, time < lastScan + rescanInterval, currentMembers == members {
            var refreshed: [DeviceSnapshot] = []
            refreshed.reserveCapacity(devices.count)
            for device in devices {
                let names = volatile(device).filter { device.attributes[$0] != nil }
                guard let fresh = source.refresh(device, attributes: names) else {
                    return try scan(source, at: time, members: currentMembers)
                }
                refreshed.append(fresh)
            }
            self.devices = refreshed
            return refreshed
        }
        return try scan(source, at: time, members: currentMembers)
    }

    private mutating func scan(_ source: any DeviceSource, at time: Double, members: [String]?) throws(HardwareError) -> [DeviceSnapshot] {
        let fresh = try source.devices(subsystem: subsystem)
        devices = fresh
        self.members = members
        lastScan = time
        return fresh
    }
}
