import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleHTTP
import JouleTesting
import Testing

/// Uploads, one attempt at a time, against the fault-injection server's PUT and POST.
@Suite struct HTTPUploaderTests {
    let server: FaultHTTPServer

    init() async throws { server = try await FaultHTTPServer.start() }

    /// A source file of `size` deterministic bytes in the test's directory; returns its path.
    private func source(_ name: String, size: Int) throws -> String {
        let path = server.destination(name)
        // A prime-length pattern, repeated: no chunk of the body equals its neighbour.
        let pattern = (0..<65_521).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        var bytes = Data(capacity: size)
        while bytes.count < size { bytes.append(contentsOf: pattern.prefix(size - bytes.count)) }
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func putAndPostArriveByteIdentical() async throws {
        let path = try source("body.bin", size: 384 << 10)
        let expected = try SHA256Hasher.hexDigest(ofFile: path)
        let (put, post) = try await using(HTTPUploader()) { uploader in
            (await uploader.attempt(UploadRequest(url: server.url("/put"), method: .put, source: path)),
             await uploader.attempt(UploadRequest(
                url: server.url("/post"), method: .post, headers: [TransferHeader(name: "Content-Type", value: "application/octet-stream")],
                source: path)))
        }
        for (result, route, method) in [(put, "/put", "PUT"), (post, "/post", "POST")] {
            #expect(result.outcome == .completed)
            #expect(result.durableBytes == 384 << 10)
            #expect(result.progressed)
            #expect(try SHA256Hasher.hexDigest(ofFile: server.received(route)) == expected)
            let logged = try server.requests(route)
            #expect(logged.map(\.method) == [method])
            #expect(logged.map(\.length) == [384 << 10])
        }
    }

    @Test func anEmptySourceIsSentAsAnEmptyBody() async throws {
        let path = try source("empty.bin", size: 0)
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/empty"), method: .post, source: path)) }
        #expect(result.outcome == .completed)
        #expect(result.progressed)
        #expect(try server.requests("/empty").map(\.length) == [0])
    }

    @Test func serviceUnavailableRetriesAfterTheServersDelay() async throws {
        let path = try source("busy.bin", size: 10_000)
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/busy?status=503&retryafter=90"), source: path)) }
        #expect(result.outcome == .retry(reason: "HTTP 503", retryAfter: "90"))
        #expect(!result.progressed)
        #expect(result.durableBytes == 0)
    }

    /// Issue 32: a refused connection is a retry worded as one sentence with the errno.
    @Test func aRefusedConnectionRetriesAtOnce() async throws {
        let closed = try await FaultHTTPServer.start()
        try await closed.stop()
        let path = try source("refused.bin", size: 1000)
        let tuning = TransferTuning(throughputFloor: 1024, throughputWindow: .seconds(2))
        let result = try await using(HTTPUploader(tuning: tuning)) {
            await $0.attempt(UploadRequest(url: closed.url("/put"), method: .put, source: path))
        }
        #expect(result.outcome == .retry(
            reason: "cannot connect to 127.0.0.1:\(closed.port): connection refused (ECONNREFUSED)", retryAfter: nil))
    }

    @Test func forbiddenFailsAtOnce() async throws {
        let path = try source("denied.bin", size: 10_000)
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/denied?status=403"), method: .post, source: path)) }
        #expect(result.outcome == .failed(reason: "HTTP 403"))
        #expect(try server.requests("/denied").count == 1)
    }

    @Test func aVanishedSourceFailsNamingThePath() async throws {
        let path = try source("gone.bin", size: 10_000)
        try FileManager.default.removeItem(atPath: path)
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/gone"), source: path)) }
        guard case .failed(let reason) = result.outcome else {
            Issue.record("a missing source ended with \(result.outcome)")
            return
        }
        #expect(reason.contains(path))
        #expect(reason.contains("No such file or directory"))
        #expect(try server.requests("/gone").isEmpty)
    }

    @Test func aDirectoryAsSourceFailsBeforeSending() async throws {
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/dir"), source: server.directory.path)) }
        guard case .failed(let reason) = result.outcome else {
            Issue.record("a directory source ended with \(result.outcome)")
            return
        }
        #expect(reason.contains("not a regular file"))
        #expect(try server.requests("/dir").isEmpty)
    }

    @Test func aHangingServerSuspends() async throws {
        let path = try source("hang.bin", size: 300_000)
        let tuning = TransferTuning(throughputFloor: 1024, throughputWindow: .seconds(1))
        let result = try await using(HTTPUploader(tuning: tuning)) { await $0.attempt(UploadRequest(url: server.url("/hang?hang=1"), source: path)) }
        guard case .suspended = result.outcome else {
            Issue.record("hang ended with \(result.outcome)")
            return
        }
        #expect(!result.progressed)
        #expect(result.durableBytes == 0)
    }

    @Test func temporaryAndPermanentRedirectsKeepTheMethodAndBody() async throws {
        let path = try source("hop.bin", size: 200_000)
        let expected = try SHA256Hasher.hexDigest(ofFile: path)
        let (temporary, permanent) = try await using(HTTPUploader()) { uploader in
            (await uploader.attempt(UploadRequest(url: server.url("/hop?redirect=3"), method: .post, source: path)),
             await uploader.attempt(UploadRequest(url: server.url("/perm?redirect=1&redirectstatus=308"), method: .put, source: path)))
        }
        #expect(temporary.outcome == .completed)
        #expect(permanent.outcome == .completed)
        let hops = try server.requests("/hop")
        #expect(hops.map(\.method) == ["POST", "POST", "POST", "POST"])
        #expect(hops.map(\.sha256) == Array(repeating: expected, count: 4))
        #expect(try server.requests("/perm").map(\.method) == ["PUT", "PUT"])
        #expect(try SHA256Hasher.hexDigest(ofFile: server.received("/perm")) == expected)
    }

    @Test func aFoundRedirectFailsRatherThanBecomingAGet() async throws {
        let path = try source("found.bin", size: 10_000)
        let result = try await using(HTTPUploader()) { await $0.attempt(UploadRequest(url: server.url("/found?redirect=1&redirectstatus=302"), method: .post, source: path)) }
        guard case .failed(let reason) = result.outcome else {
            Issue.record("302 for an upload ended with \(result.outcome)")
            return
        }
        #expect(reason.contains("302"))
        #expect(try server.requests("/found").map(\.method) == ["POST"])
    }

    @Test func redirectsBeyondTheLimitFail() async throws {
        let path = try source("far.bin", size: 1_000)
        let tuning = TransferTuning(maxRedirects: 2)
        let result = try await using(HTTPUploader(tuning: tuning)) { await $0.attempt(UploadRequest(url: server.url("/far?redirect=3"), source: path)) }
        #expect(result.outcome == .failed(reason: "more than 2 redirects"))
        #expect(try server.requests("/far").count == 3)
    }

    @Test func aSourceThatGrowsMidSendIsRetried() async throws {
        // Large enough that loopback socket buffers cannot take it all before the server, reading
        // slowly, has begun; the append lands while most of the file is still unread.
        let size = 32 << 20
        let path = try source("grow.bin", size: size)
        let result = try await using(HTTPUploader()) { uploader in
            async let attempt = uploader.attempt(UploadRequest(url: server.url("/grow?trickle=524288"), source: path))
            while !FaultHTTPServer.exists(server.received("/grow")) { try await Task.sleep(for: .milliseconds(10)) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 1, count: 4096))
            try handle.close()
            return await attempt
        }
        guard case .retry(let reason, nil) = result.outcome else {
            Issue.record("a growing source ended with \(result.outcome)")
            return
        }
        #expect(reason.contains("changed size during the send"))
        #expect(reason.contains(path))
        #expect(!result.progressed)
    }
}
