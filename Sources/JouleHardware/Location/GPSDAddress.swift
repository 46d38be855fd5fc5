/// Where gpsd listens: `--gpsd HOST:PORT`, `HOST`, `[IPV6]:PORT` or `[IPV6]` (default port
/// 2947, gpsd's IANA port). Pure: text in, an address or a message out.
public struct GPSDAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// gpsd's default: localhost:2947.
    public static let standard = GPSDAddress(host: "localhost", port: 2947)

    public static func parse(_ text: String) -> Result<GPSDAddress, GPSDAddressError> {
        func failure(_ why: String) -> Result<GPSDAddress, GPSDAddressError> {
            .failure(GPSDAddressError(description: "--gpsd must be HOST, HOST:PORT or [IPV6]:PORT, not '\(text)': \(why)"))
        }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return failure("no ']' after the IPv6 address") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return failure("expected ':PORT' after ']'") }
                portText = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count > 1 {
            return failure("an IPv6 address goes in brackets, as [::1]:2947")
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text[...]
        }
        guard !host.isEmpty else { return failure("no host") }
        guard host.allSatisfy({ !$0.isWhitespace && $0 != "/" && $0 != "[" && $0 != "]" }) else {
            return failure("'\(host)' is not a host name or address")
        }
        var port: UInt16 = 2947
        if let portText {
            guard let value = UInt16(portText), value > 0 else { return failure("the port must be 1 to 65535") }
            port = value
        }
        return .success(GPSDAddress(host: String(host), port: port))
    }

    /// `localhost:2947`, `[::1]:2947`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

public struct GPSDAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
}
