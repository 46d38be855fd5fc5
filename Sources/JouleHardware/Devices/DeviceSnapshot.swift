/// One kernel device as read at one instant: what libudev and a fixture sysfs tree both yield.
///
/// A snapshot is a plain value, so nothing from libudev outlives the thread that read it.
public struct DeviceSnapshot: Sendable, Hashable {
    /// Kernel subsystem, e.g. `power_supply`, `thermal`, `hwmon`.
    public var subsystem: String
    /// Kernel name, e.g. `BAT0`, `thermal_zone0`, `cooling_device3`.
    public var sysname: String
    /// Canonical device path as the kernel names it, always starting with `/sys/devices/`.
    public var syspath: String
    /// uevent properties (`POWER_SUPPLY_STATUS=...`), as udev reports them.
    public var properties: [String: String]
    /// Readable attribute files of the device directory, by file name.
    public var attributes: [String: AttributeRead]

    public init(
        subsystem: String, sysname: String, syspath: String,
        properties: [String: String] = [:], attributes: [String: AttributeRead] = [:]
    ) {
        self.subsystem = subsystem
        self.sysname = sysname
        self.syspath = syspath
        self.properties = properties
        self.attributes = attributes
    }

    /// The attribute's text with surrounding whitespace trimmed, or nil when absent or unreadable.
    public func string(_ name: String) -> String? {
        if case .value(let text)? = attributes[name] { return text }
        return nil
    }
}

/// The outcome of reading one sysfs attribute. Firmware often answers with an error
/// (ENODATA, EAGAIN, EIO) instead of a value; that is kept, not thrown, so one bad
/// attribute never hides the others.
public enum AttributeRead: Sendable, Hashable {
    /// The file's contents, trailing newline and surrounding whitespace removed.
    case value(String)
    /// The read failed with this errno.
    case failed(Errno)
}
