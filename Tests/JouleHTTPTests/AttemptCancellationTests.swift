import Foundation
@testable import JouleHTTP
import JouleTesting
import Testing

/// The scheduler cancels a running attempt when a condition is lost: the attempt must end on
/// the cancellation itself (not on the throughput window, left at its 30 s default here), as
/// `.suspended`, keeping what is durable.
@Suite struct AttemptCancellationTests {
    let server: FaultHTTPServer

    init() async throws { server = try await FaultHTTPServer.start() }

    @Test func aCancelledDownloadIsSuspendedKeepingItsDurableBytes() async throws {
        let downloader = HTTPRangeDownloader(syncBytes: 100)
        let log = DurableLog()
        let request = DownloadRequest(url: server.url("/slow?size=1000000&trickle=2000"), destination: server.destination("slow.bin"))
        let attempt = Task { await downloader.attempt(request) { log.record($0) } }
        while !log.all.contains(where: { $0.0 > 0 }) { try await Task.sleep(for: .milliseconds(20)) }
        attempt.cancel()
        let result = await attempt.value
        try await downloader.shutdown()
        #expect(result.outcome == .suspended(reason: "cancelled"))
        let committed = try #require(log.all.last?.0)
        #expect(result.durableBytes >= committed)
        #expect(result.durableBytes < 1_000_000)
        #expect(result.progressed)
        #expect(result.validators.strongETag == "\"v0-1000000\"")
    }

    @Test func aCancelledUploadIsSuspended() async throws {
        let source = server.destination("source.bin")
        try Data(repeating: 42, count: 300_000).write(to: URL(fileURLWithPath: source))
        let uploader = HTTPUploader()
        let attempt = Task { await uploader.attempt(UploadRequest(url: server.url("/stuck?hang=1"), source: source)) }
        // The hanging server logs the request head as soon as it has read it.
        while try server.requests("/stuck").isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        attempt.cancel()
        let result = await attempt.value
        try await uploader.shutdown()
        #expect(result.outcome == .suspended(reason: "cancelled"))
        #expect(!result.progressed)
    }
}
