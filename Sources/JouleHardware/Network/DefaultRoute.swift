/// The default route the kernel would use: the interface of the lowest-metric `0.0.0.0/0`
/// entry in `ROOT/proc/net/route` that is up, or, on an IPv6-only network (common on cellular),
/// the lowest-metric `::/0` entry of `ROOT/proc/net/ipv6_route`. What decides, without
/// NetworkManager, which link a transfer would travel over.
public struct DefaultRoute: Sendable, Hashable {
    public var interface: String
    public var metric: Int

    public init(interface: String, metric: Int) {
        self.interface = interface
        self.metric = metric
    }

    /// RTF_UP and RTF_REJECT (an `unreachable`/`prohibit` default routes nothing) in the
    /// Flags column (hex).
    static let upFlag = 0x0001
    static let rejectFlag = 0x0200

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
            guard destination == 0, mask == 0, flags & upFlag != 0, flags & rejectFlag == 0 else { continue }
            if best == nil || metric < best!.metric {
                best = DefaultRoute(interface: String(fields[0]), metric: metric)
            }
        }
        return best
    }

    /// The IPv6 default route in `/proc/net/ipv6_route` text (destination, prefix length,
    /// source, source prefix length, next hop, metric, refcount, use, flags, interface; numbers
    /// in hex), or nil. Pure, with the same rules as `parse`: the kernel's `lo` entry for an
    /// unreachable default carries RTF_REJECT and is skipped.
    public static func parseIPv6(_ text: String) -> DefaultRoute? {
        var best: DefaultRoute?
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 10, fields[0].allSatisfy({ $0 == "0" }), fields[0].count == 32, fields[1] == "00",
                let metric = UInt32(fields[5], radix: 16), let flags = Int(fields[8], radix: 16)
            else { continue }
            guard flags & upFlag != 0, flags & rejectFlag == 0 else { continue }
            if best == nil || Int(metric) < best!.metric {
                best = DefaultRoute(interface: String(fields[9]), metric: Int(metric))
            }
        }
        return best
    }

    /// Reads `ROOT/proc/net/route`, then `ROOT/proc/net/ipv6_route` when IPv4 has no default
    /// route (a missing IPv6 table counts as none); nil when neither has one. Throws when the
    /// IPv4 table cannot be read (no /proc).
    public static func read(root: FileRoot = .live) throws(HardwareError) -> DefaultRoute? {
        if let route = parse(try Syscalls.readText(root.path("/proc/net/route"))) { return route }
        guard let table = try? Syscalls.readText(root.path("/proc/net/ipv6_route")) else { return nil }
        return parseIPv6(table)
    }
}
