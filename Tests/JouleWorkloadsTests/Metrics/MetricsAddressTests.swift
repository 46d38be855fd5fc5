@testable import JouleWorkloads
import Testing

/// `metrics.listen`: IP literals and ports as Prometheus writes listen addresses.
@Suite struct MetricsAddressTests {
    @Test(arguments: [
        ("127.0.0.1:9747", "127.0.0.1", 9747), ("0.0.0.0:0", "0.0.0.0", 0), ("[::1]:9747", "::1", 9747),
        ("[::]:80", "::", 80), ("[fe80::1:2:3:4]:65535", "fe80::1:2:3:4", 65535),
        ("[::ffff:192.0.2.1]:9100", "::ffff:192.0.2.1", 9100), ("[1:2:3:4:5:6:7:8]:1", "1:2:3:4:5:6:7:8", 1),
    ])
    func parses(_ text: String, _ host: String, _ port: Int) throws {
        let address = try MetricsAddress.parse(text)
        #expect(address == MetricsAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("localhost:9747", "\"localhost\" is not an IP address (host names are not taken"),
        ("127.0.0.1", "expected an IP address and a port, as 127.0.0.1:9747 or [::1]:9747, found \"127.0.0.1\""),
        ("127.0.0.1:", "\"\" is not a TCP port (0 to 65535)"),
        ("127.0.0.1:65536", "\"65536\" is not a TCP port"),
        ("127.0.0.1:+80", "\"+80\" is not a TCP port"),
        ("256.0.0.1:80", "\"256.0.0.1\" is not an IP address"),
        ("1.2.3:80", "\"1.2.3\" is not an IP address"),
        ("::1:9747", "an IPv6 address goes in brackets, as [::1]:9747"),
        ("[::1]9747", "expected an IP address and a port"),
        ("[1::2::3]:80", "\"1::2::3\" is not an IPv6 address"),
        ("[1:2:3:4:5:6:7:8:9]:80", "\"1:2:3:4:5:6:7:8:9\" is not an IPv6 address"),
        ("[12345::]:80", "\"12345::\" is not an IPv6 address"),
        ("[fe80::1%eth0]:80", "\"fe80::1%eth0\" is not an IPv6 address"),
        ("", "expected an IP address and a port"),
    ])
    func refuses(_ text: String, _ message: String) {
        #expect {
            try MetricsAddress.parse(text)
        } throws: { error in
            (error as? MetricsAddress.Invalid)?.description.hasPrefix(message) == true
        }
    }

    @Test func theDefaultIsLoopbackOnJoulesPort() {
        #expect(MetricsSettings() == MetricsSettings(enabled: false, listen: MetricsAddress(host: "127.0.0.1", port: 9747)))
    }
}
