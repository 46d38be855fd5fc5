import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads
@testable import JouleMetrics
import JouleTesting
import NIOCore
import NIOPosix
import Testing

/// `/metrics` over a real socket, with Python's HTTP clients on the other end.
@Suite(.enabled("needs python3-prometheus-client (scripts/install-deps.sh)") { await PrometheusTools.hasPythonClient })
struct MetricsHTTPServerTests {
    static let loopback = MetricsAddress(host: "127.0.0.1", port: 0)

    /// How many times the server rendered.
    final class Renders: Sendable {
        private let count = Locked(0)
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
        var value: Int { count.withLock { $0 } }
    }

    /// A server whose renders are counted.
    static func server(_ renders: Renders) async throws -> MetricsHTTPServer {
        try await MetricsHTTPServer.start(at: loopback) {
            "# TYPE joule_test_renders gauge\njoule_test_renders \(renders.next()).0\n"
        }
    }

    /// Nothing is rendered until a scrape; a scrape renders once and gets the text format's
    /// content type.
    @Test func rendersOnlyWhenScraped() async throws {
        let renders = Renders()
        let server = try await Self.server(renders)
        #expect(server.address.host == "127.0.0.1" && server.address.port > 0)
        try await Task.sleep(for: .milliseconds(200))
        #expect(renders.value == 0)
        let scraped = try await PrometheusTools.scrape("http://\(server.address)/metrics")
        #expect(scraped.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(scraped.text == "# TYPE joule_test_renders gauge\njoule_test_renders 1.0\n")
        #expect(scraped.families.first?.samples.first?.value == 1)
        #expect(renders.value == 1)
        await server.close()
    }

    /// One keep-alive connection: GET, HEAD (headers only), a query string, a wrong path and
    /// a wrong method, answered in order.
    @Test func methodsPathsAndKeepAlive() async throws {
        let renders = Renders()
        let server = try await Self.server(renders)
        let script = """
            import http.client, json, sys
            connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=20)
            answers = []
            for method, path in [("GET", "/metrics"), ("HEAD", "/metrics"), ("GET", "/metrics?x=1"), ("GET", "/"), ("POST", "/metrics")]:
                connection.request(method, path, body=b"ignored" if method == "POST" else None)
                response = connection.getresponse()
                body = response.read().decode()
                answers.append([response.status, response.getheader("Content-Length"), response.getheader("Allow"), body])
            json.dump(answers, sys.stdout)
            """
        let result = try await PrometheusTools.python(script, ["\(server.address.port)"])
        #expect(result.status == 0, "\(result.output)")
        let answers = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[Any]] ?? []
        let summary = answers.map { answer in answer.map { String(describing: $0) }.joined(separator: "|") }
        #expect(summary == [
            "200|55|<null>|# TYPE joule_test_renders gauge\njoule_test_renders 1.0\n",
            "200|55|<null>|",
            "200|55|<null>|# TYPE joule_test_renders gauge\njoule_test_renders 3.0\n",
            "404|33|<null>|not found: joule serves /metrics\n",
            "405|18|GET, HEAD|only GET and HEAD\n",
        ])
        await server.close()
    }

    /// Closing the endpoint ends a client's open keep-alive connection too: nothing waits on it.
    @Test func closingEndsOpenConnections() async throws {
        let renders = Renders()
        let server = try await Self.server(renders)
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: server.address.port).get()
        try await client.writeAndFlush(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n"))
        for _ in 0..<200 where renders.value == 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(renders.value == 1)
        await server.close()
        let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await client.closeFuture.get()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(15))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(closed, "the server kept the client's connection after close()")
        try? await client.close()
    }

    /// A port already taken is an error naming the address and the system's reason.
    @Test func aTakenPortIsAnError() async throws {
        let renders = Renders()
        let first = try await Self.server(renders)
        let taken = MetricsAddress(host: "127.0.0.1", port: first.address.port)
        await #expect {
            _ = try await MetricsHTTPServer.start(at: taken) { "" }
        } throws: { error in
            let description = (error as? MetricsError)?.description ?? ""
            return description.hasPrefix("cannot serve /metrics on \(taken): ") && description.contains("Address already in use")
        }
        await first.close()
    }
}
