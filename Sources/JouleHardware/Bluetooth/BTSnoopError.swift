/// Why a btsnoop capture cannot be replayed at all. Damage after a valid header is a
/// `BTSnoopWarning` instead: the records read so far stand.
public enum BTSnoopError: Error, Sendable, CustomStringConvertible {
    case io(HardwareError)
    case notBTSnoop(path: String, detail: String)
    case unsupportedVersion(path: String, version: UInt32)
    case unsupportedDatalink(path: String, datalink: UInt32)

    public var description: String {
        switch self {
        case .io(let error): "\(error)"
        case .notBTSnoop(let path, let detail): "\(path): not a btsnoop capture: \(detail)"
        case .unsupportedVersion(let path, let version):
            "\(path): unsupported btsnoop version \(version) (only version 1 exists)"
        case .unsupportedDatalink(let path, let datalink):
            "\(path): unsupported btsnoop datalink \(datalink) (Joule reads 1001 raw HCI, 1002 H4 and 2001 BlueZ monitor)"
        }
    }
}

/// A problem that ended a replay early; records before it were delivered.
public struct BTSnoopWarning: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// Zero-based index of the record that could not be read.
    public var record: Int
    /// Byte offset of that record in the file.
    public var offset: Int
    public var detail: String

    public var description: String { "\(path): record \(record) at byte \(offset): \(detail); replay ends here" }
}
