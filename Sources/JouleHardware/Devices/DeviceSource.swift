/// Where device snapshots come from: libudev on a live system, or a fixture tree.
///
/// Both implementations must return identical snapshots for the same tree; the CLI tests
/// check this on every fixture by running the udev path under umockdev.
public protocol DeviceSource: Sendable {
    /// Every device of `subsystem`, sorted by sysname. An absent subsystem is an empty list.
    func devices(subsystem: String) throws(HardwareError) -> [DeviceSnapshot]

    /// Re-reads only `attributes` of a device enumerated before, keeping its other values: the
    /// cheap path for polling. nil when the device is gone, so the caller enumerates again.
    func refresh(_ device: DeviceSnapshot, attributes: [String]) -> DeviceSnapshot?

    /// The names in `subsystem`, listed cheaply to notice devices coming and going between
    /// enumerations; nil where uevents report that instead (libudev).
    func memberNames(subsystem: String) -> [String]?

    /// A live stream of uevents for `subsystems`, or nil where the source has none (a fixture
    /// tree is polled instead).
    func monitor(subsystems: [String]) throws(HardwareError) -> UdevMonitor?
}

extension DeviceSource {
    public func memberNames(subsystem: String) -> [String]? { nil }
    public func monitor(subsystems: [String]) throws(HardwareError) -> UdevMonitor? { nil }
}
