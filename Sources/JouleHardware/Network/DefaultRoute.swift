/// The IPv4 default route the kernel would use: the interface of the lowest-metric `0.0.0.0/0`
/// entry in `ROOT/proc/net/route` that is up. What decides, without NetworkManager, which link a
/// transfer would travel over.
public struct DefaultRoute: Sendable, Hashable {
    public var interface: String
    public var metric: Int

    public init(interface: String, metric: Int) {
        self.interface = interface
        self.metric = metric
    }

    /// RTF_UP in the Flags column (hex).
    static let upFlag = 0x0001

    /// The default route in `/proc/net/route` text, or nil when there is none. Pure: the header
    /// line and malformed lines are skipped; on equal metrics the first line wins, as the
    /// kernel's lookup takes the first match.
    public static func parse(_ text: String) -> DefaultRoute? {
        var best: DefaultRoute?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT
            guard fields.count >= 8, fields[0] != "Iface",
                let destination = UInt32(fields[1], radix: 16), let flags = Int(fields[3], radix: 16),
                let metric = Int(fields[6]), let mask = UInt32(fields[7], radix: 16)
            else { continue }
            guard destination == 0, mask == 0, flags & upFlag != 0 else { continue }
            if best == nil || metric < best!.metric {
                best = DefaultRoute(interface: String(fields[0]), metric: metric)
            }
        }
        return best
    }

    /// Reads `ROOT/proc/net/route`; nil when there is no default route. Throws when the file
    /// cannot be read (no /proc, or no IPv4 in this kernel).
    public static func read(root: FileRoot = .live) throws(HardwareError) -> DefaultRoute? {
        parse(try Syscalls.readText(root.path("/proc/net/route")))
    }
}
