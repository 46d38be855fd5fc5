/// Where `/metrics` listens: an IP address literal and a TCP port, written `127.0.0.1:9747` or
/// `[::1]:9747` as Prometheus writes listen addresses. Host names are refused: what a name
/// resolves to can change after the daemon has bound, and the choice of address is the point
/// of the setting (loopback by default, so nothing is exposed without asking).
public struct MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    /// Why a text is not an address, for the config reader to place.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// The address literal, without brackets: `127.0.0.1`, `::1`, `0.0.0.0`, `::`.
    public var host: String
    /// 0 lets the kernel choose a free port (the daemon logs which).
    public var port: Int

    public static let defaultListen = MetricsAddress(host: "127.0.0.1", port: 9747)

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var isIPv6: Bool { host.contains(":") }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func parse(_ text: String) throws(Invalid) -> MetricsAddress {
        let example = "expected an IP address and a port, as 127.0.0.1:9747 or [::1]:9747"
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw Invalid(description: "\(example), found \"\(text)\"")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard isIPv6Literal(host) else { throw Invalid(description: "\"\(host)\" is not an IPv6 address") }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw Invalid(description: "\(example), found \"\(text)\"") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw Invalid(description: "an IPv6 address goes in brackets, as [::1]:9747") }
            guard isIPv4Literal(host) else {
                throw Invalid(description: "\"\(host)\" is not an IP address (host names are not taken: \(example))")
            }
        }
        guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let port = Int(portText), port <= 65535
        else { throw Invalid(description: "\"\(portText)\" is not a TCP port (0 to 65535)") }
        return MetricsAddress(host: String(host), port: port)
    }

    /// Four decimal parts of at most three digits, each 0 to 255.
    static func isIPv4Literal(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(part).map { $0 <= 255 } == true
        }
    }

    /// RFC 4291's text forms: eight groups of one to four hex digits, at most one `::` standing
    /// for the zero groups left out, and optionally a dotted IPv4 address as the last 32 bits.
    static func isIPv6Literal(_ text: Substring) -> Bool {
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        guard halves.count <= 2, !text.contains(":::") else { return false }
        var groups = 0
        for (index, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (position, part) in parts.enumerated() {
                let isLast = index == halves.count - 1 && position == parts.count - 1
                if isLast, part.contains(".") {
                    guard isIPv4Literal(part) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(part.utf8.count), part.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return false }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }
}
