/// A failure of the hardware layer, always naming what was being done and where.
public struct HardwareError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was attempted, e.g. `open`, `udev_enumerate_scan_devices`, `parse`.
    public var operation: String
    /// The file, device or capture involved.
    public var path: String
    /// The errno, when the failure came from the system.
    public var errno: Errno?
    /// Extra words for failures without an errno (a garbage value, a truncated record).
    public var detail: String?

    public init(operation: String, path: String, errno: Errno? = nil, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        var text = "\(operation) \(path)"
        if let errno { text += ": \(errno)" }
        if let detail { text += ": \(detail)" }
        return text
    }
}
