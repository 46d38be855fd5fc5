import AsyncHTTPClient
import NIOCore
import Testing
@testable import JouleHTTP

#if canImport(Glibc)
import Glibc
#endif

/// How network errors read (issue 32): one sentence, the peer, the errno by name.
@Suite struct NetworkFailureTests {
    @Test func connectFailuresNameThePeerAndTheErrno() {
        #expect(NetworkFailure.sentence(IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"), url: "http://127.0.0.1:9/x")
            == "cannot connect to 127.0.0.1:9: connection refused (ECONNREFUSED)")
        #expect(NetworkFailure.sentence(IOError(errnoCode: ENETUNREACH, reason: "connect"), url: "https://example.org/a?b")
            == "cannot connect to example.org:443: network is unreachable (ENETUNREACH)")
        #expect(NetworkFailure.sentence(ChannelError.connectTimeout(.seconds(30)), url: "http://[::1]/x")
            == "cannot connect to [::1]:80: no answer within 30 s (ETIMEDOUT)")
    }

    @Test func laterFailuresSayTheConnectionBroke() {
        #expect(NetworkFailure.sentence(IOError(errnoCode: ECONNRESET, reason: "read"), url: "http://h:8080/x")
            == "connection to h:8080 failed: connection reset by peer (ECONNRESET)")
        #expect(NetworkFailure.sentence(HTTPClientError.remoteConnectionClosed, url: "http://h/x")
            == "h:80 closed the connection before the response ended")
    }
}
