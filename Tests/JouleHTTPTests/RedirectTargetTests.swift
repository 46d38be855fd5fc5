import JouleHTTP
import Testing

/// Where a 307/308 may send an upload: http(s) with a host only, resolved against the request.
@Suite struct RedirectTargetTests {
    static let base = "https://files.example.org:8443/in/box?x=1"

    @Test(arguments: ["file:///etc/shadow", "ftp://files.example.org/f", "gopher://x/", "javascript:alert(1)", "http://", "//"])
    func otherSchemesAndHostlessTargetsAreRefused(_ location: String) {
        #expect(RedirectTarget(location: location, from: Self.base) == nil)
    }

    @Test func noLocationIsNoTarget() {
        #expect(RedirectTarget(location: nil, from: Self.base) == nil)
    }

    @Test func aRelativeLocationStaysWithTheOrigin() throws {
        let target = try #require(RedirectTarget(location: "../out/file", from: Self.base))
        #expect(target.url == "https://files.example.org:8443/out/file")
        #expect(target.sameOrigin)
    }

    @Test func anotherHostPortOrSchemeIsAnotherOrigin() throws {
        for location in ["https://cdn.example.org/f", "https://files.example.org/f", "http://files.example.org:8443/f"] {
            let target = try #require(RedirectTarget(location: location, from: Self.base))
            #expect(!target.sameOrigin, "\(location)")
        }
        #expect(RedirectTarget(location: "HTTPS://FILES.example.org:8443/f", from: Self.base)?.sameOrigin == true)
    }
}
