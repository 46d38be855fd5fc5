/// Reads `ROOT/sys/devices/platform/soc/soc:firmware/get_throttled`, the raspberrypi firmware
/// driver's file. Machines without it (every non-Pi, or a kernel without the driver) give nil.
public struct RaspberryPiThrottlingReader: Sendable {
    public static let path = "/sys/devices/platform/soc/soc:firmware/get_throttled"

    public let root: FileRoot
    private let readFile: @Sendable (String) throws(HardwareError) -> [UInt8]

    /// `readFile` reads the whole file; tests inject failures through it.
    public init(
        root: FileRoot = .live,
        readFile: @escaping @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
            try FileSystem.readBytes(path, limit: 256)
        }
    ) {
        self.root = root
        self.readFile = readFile
    }

    /// The flags; nil when the file does not exist. A failed read (the firmware not answering)
    /// throws the read's error, and content that is not the driver's hex throws a `parse`
    /// error naming the file and what it held.
    public func read() throws(HardwareError) -> RaspberryPiThrottling? {
        let file = root.path(Self.path)
        let bytes: [UInt8]
        do {
            bytes = try readFile(file)
        } catch {
            if error.errno == .noEntry || error.errno == .notDirectory { return nil }
            throw error
        }
        let text = DeviceAttributePolicy.text(bytes: bytes)
        guard let flags = RaspberryPiThrottling.parse(text) else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw HardwareError(operation: "parse", path: file, detail: "expected the firmware's flags in hex (as 50005), found \"\(shown)\"")
        }
        return flags
    }
}
