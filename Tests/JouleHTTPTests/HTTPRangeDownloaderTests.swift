@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleHTTP
import JouleTesting
import Foundation
import Testing

/// One attempt at a time against the fault-injection server, as the queue would run them.
@Suite struct HTTPRangeDownloaderTests {
    let server: FaultHTTPServer

    init() async throws { server = try await FaultHTTPServer.start() }

    private func withDownloader<T>(
        _ tuning: TransferTuning = TransferTuning(), _ body: (HTTPRangeDownloader) async throws -> T
    ) async throws -> T {
        try await using(HTTPRangeDownloader(tuning: tuning), body)
    }

    /// Runs attempts, carrying durableBytes and validators over as the queue would, until one
    /// ends other than `.retry` or `limit` attempts ran.
    private func run(
        _ request: DownloadRequest, _ downloader: HTTPRangeDownloader, log: DurableLog = DurableLog(), limit: Int = 6
    ) async -> [TransferAttemptResult] {
        var request = request
        var results: [TransferAttemptResult] = []
        for _ in 0..<limit {
            let result = await downloader.attempt(request) { log.record($0) }
            results.append(result)
            request.durableBytes = result.durableBytes
            request.validators = result.validators
            guard case .retry = result.outcome else { break }
        }
        return results
    }

    @Test func plainDownloadVerifiesSHA256AndRenamesIntoPlace() async throws {
        let expected = FaultHTTPServer.body(size: 200_000)
        let digest = try SHA256Hasher()
        digest.update(expected)
        let dest = server.destination("plain.bin")
        let request = DownloadRequest(url: server.url("/plain?size=200000"), destination: dest, sha256: try digest.finalize())
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
        #expect(!FaultHTTPServer.exists(request.partPath))
        let logged = try server.requests("/plain")
        #expect(logged.map(\.acceptEncoding) == ["identity"])
        #expect(logged.map(\.range) == [nil])
    }

    @Test func aCutBodyResumesWithRangeAtTheDurableOffset() async throws {
        let dest = server.destination("cut.bin")
        let request = DownloadRequest(url: server.url("/cut?size=300000&cutfirst=100000"), destination: dest)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome.isRetry) == [true, false])
        #expect(results.last?.outcome == .completed)
        let durable = try #require(results.first?.durableBytes)
        #expect(durable > 0 && durable <= 100_000)
        #expect(results.first?.progressed == true)
        let logged = try server.requests("/cut")
        #expect(logged.map(\.range) == [nil, "bytes=\(durable)-"])
        #expect(logged.map(\.ifRange) == [nil, "\"v0-300000\""])
        #expect(FaultHTTPServer.fileBytes(dest) == FaultHTTPServer.body(size: 300_000))
    }

    @Test func afterACrashThePartFileIsCutBackToDurableBytes() async throws {
        let dest = server.destination("crash.bin")
        let expected = FaultHTTPServer.body(size: 100_000)
        // 50 000 committed bytes, then 10 000 written but never committed (torn by the crash).
        let onDisk = Array(expected[0..<50_000]) + [UInt8](repeating: 0xEE, count: 10_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(onDisk))
        let request = DownloadRequest(
            url: server.url("/crash?size=100000"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-100000\"", totalLength: 100_000), durableBytes: 50_000)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(try server.requests("/crash").map(\.range) == ["bytes=50000-"])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    @Test func ignoredRangeRestartsFromZero() async throws {
        let dest = server.destination("norange.bin")
        let expected = FaultHTTPServer.body(size: 100_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(expected[0..<30_000]))
        let request = DownloadRequest(
            url: server.url("/norange?size=100000&norange=1"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-100000\"", totalLength: 100_000), durableBytes: 30_000)
        let log = DurableLog()
        let results = try await withDownloader { await run(request, $0, log: log) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(try server.requests("/norange").map(\.range) == ["bytes=30000-"])
        #expect(log.all.first?.0 == 0)  // the 200 was recorded at 0 bytes before its first write
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    @Test func aChangedETagRestartsWithTheNewRepresentation() async throws {
        let dest = server.destination("etag.bin")
        let request = DownloadRequest(url: server.url("/etag?size=100000&etag=change&cutfirst=40000"), destination: dest)
        let log = DurableLog()
        let results = try await withDownloader { await run(request, $0, log: log) }
        #expect(results.map(\.outcome.isRetry) == [true, false])
        #expect(results.last?.outcome == .completed)
        let logged = try server.requests("/etag")
        #expect(logged.map(\.range) == [nil, "bytes=\(results[0].durableBytes)-"])
        #expect(logged.map(\.ifRange) == [nil, "\"v1-100000\""])
        // Second request: the server's version 2, whole, never spliced onto version 1's bytes.
        #expect(FaultHTTPServer.fileBytes(dest) == FaultHTTPServer.body(size: 100_000, version: 2))
        #expect(log.all.contains { $0.0 == 0 && $0.1 == "\"v2-100000\"" })
        #expect(results.last?.validators.strongETag == "\"v2-100000\"")
    }

    @Test func aWrongContentRangeIsRefusedAndTheFileFetchedFromZero() async throws {
        let dest = server.destination("badrange.bin")
        let expected = FaultHTTPServer.body(size: 100_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(expected[0..<20_000]))
        let request = DownloadRequest(
            url: server.url("/badrange?size=100000&badrange=1"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-100000\"", totalLength: 100_000), durableBytes: 20_000)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(try server.requests("/badrange").map(\.range) == ["bytes=20000-", nil])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    @Test func fourSixteenWithTheDurableLengthMeansComplete() async throws {
        let dest = server.destination("done.bin")
        let expected = FaultHTTPServer.body(size: 50_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(expected))
        let request = DownloadRequest(
            url: server.url("/done?size=50000"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-50000\"", totalLength: 50_000), durableBytes: 50_000)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(try server.requests("/done").map(\.range) == ["bytes=50000-"])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    /// Issue 32: every byte held, the length never told (a chunked body cut before its last
    /// chunk leaves this): the resume's 416 `bytes */L` with L equal to the bytes held finishes
    /// it from them instead of fetching the whole file again.
    @Test func aWholeBodyOfUnknownLengthIsFinishedByTheFourSixteen() async throws {
        let dest = server.destination("chunked.bin")
        let expected = FaultHTTPServer.body(size: 50_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(expected))
        let request = DownloadRequest(
            url: server.url("/chunked?size=50000&chunked=1"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-50000\""), durableBytes: 50_000)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(results.last?.validators.totalLength == 50_000)
        #expect(try server.requests("/chunked").map(\.range) == ["bytes=50000-"])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    /// Issue 32: a cut chunked body resumes with Range and learns the length from the 206.
    @Test func aCutBodyOfUnknownLengthResumes() async throws {
        let dest = server.destination("chunkcut.bin")
        let request = DownloadRequest(url: server.url("/chunkcut?size=300000&chunked=1&cutfirst=100000"), destination: dest)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.last?.outcome == .completed, "\(results)")
        let durable = try #require(results.first?.durableBytes)
        #expect(try server.requests("/chunkcut").map(\.range) == [nil, "bytes=\(durable)-"])
        #expect(results.last?.validators.totalLength == 300_000)
        #expect(FaultHTTPServer.fileBytes(dest) == FaultHTTPServer.body(size: 300_000))
    }

    @Test func anyOtherFourSixteenRestarts() async throws {
        let dest = server.destination("wrong416.bin")
        let expected = FaultHTTPServer.body(size: 50_000)
        _ = FileManager.default.createFile(atPath: dest + ".part", contents: Data(expected[0..<10_000]))
        let request = DownloadRequest(
            url: server.url("/wrong416?size=50000&wrong416=1"), destination: dest,
            validators: TransferValidators(strongETag: "\"v0-50000\"", totalLength: 50_000), durableBytes: 10_000)
        let results = try await withDownloader { await run(request, $0) }
        #expect(results.map(\.outcome) == [.completed])
        #expect(try server.requests("/wrong416").map(\.range) == ["bytes=10000-", nil])
        #expect(FaultHTTPServer.fileBytes(dest) == expected)
    }

    /// Issue 32: a refused connection ends the attempt as a retry saying so in one sentence,
    /// instead of the pool retrying until the throughput window suspends the attempt, and
    /// leaves no empty `.part` while the transfer waits out its backoff.
    @Test func aRefusedConnectionRetriesAtOnceLeavingNoPartFile() async throws {
        let closed = try await FaultHTTPServer.start()
        try await closed.stop()
        let dest = server.destination("refused.bin")
        let request = DownloadRequest(url: closed.url("/refused.bin"), destination: dest)
        // A window shorter than the pool's connect timeout: waiting on the pool would suspend.
        let tuning = TransferTuning(throughputFloor: 1024, throughputWindow: .seconds(2))
        let result = try await withDownloader(tuning) { await $0.attempt(request) { _ in } }
        #expect(result.outcome == .retry(
            reason: "cannot connect to 127.0.0.1:\(closed.port): connection refused (ECONNREFUSED)", retryAfter: nil))
        #expect(!result.progressed)
        #expect(!FaultHTTPServer.exists(request.partPath))
        #expect(!FaultHTTPServer.exists(dest))
    }

    @Test func serviceUnavailableRetriesAfterTheServersDelay() async throws {
        let dest = server.destination("busy.bin")
        let request = DownloadRequest(url: server.url("/busy?status=503&retryafter=120"), destination: dest)
        let result = try await withDownloader { await $0.attempt(request) { _ in } }
        #expect(result.outcome == .retry(reason: "HTTP 503", retryAfter: "120"))
        #expect(!result.progressed)
        #expect(RetryPolicy().decide(after: result, attemptsWithoutProgress: 0, now: 1000, deadline: 1e12, random: 0.5)
            == .retry(at: 1120, attemptsWithoutProgress: 1))
        #expect(!FaultHTTPServer.exists(dest))
    }

    @Test func clientErrorsFailAtOnceLeavingNoFile() async throws {
        let dest = server.destination("missing.bin")
        let request = DownloadRequest(url: server.url("/missing?status=404"), destination: dest)
        let result = try await withDownloader { await $0.attempt(request) { _ in } }
        #expect(result.outcome == .failed(reason: "HTTP 404"))
        #expect(!FaultHTTPServer.exists(dest))
    }

    @Test func trickleBelowTheFloorSuspends() async throws {
        let dest = server.destination("trickle.bin")
        let request = DownloadRequest(url: server.url("/trickle?size=100000&trickle=50"), destination: dest)
        let tuning = TransferTuning(throughputFloor: 1024, throughputWindow: .seconds(1))
        let result = try await withDownloader(tuning) { await $0.attempt(request) { _ in } }
        guard case .suspended = result.outcome else {
            Issue.record("trickle ended with \(result.outcome)")
            return
        }
        // What did arrive was kept, ready for a resume.
        #expect(result.durableBytes > 0)
        #expect(result.progressed)
    }

    @Test func aHangingServerSuspends() async throws {
        let dest = server.destination("hang.bin")
        let request = DownloadRequest(url: server.url("/hang?hang=1"), destination: dest)
        let tuning = TransferTuning(throughputFloor: 1024, throughputWindow: .seconds(1))
        let result = try await withDownloader(tuning) { await $0.attempt(request) { _ in } }
        guard case .suspended = result.outcome else {
            Issue.record("hang ended with \(result.outcome)")
            return
        }
        #expect(!result.progressed)
    }

    @Test func redirectsAreFollowedUpToTheLimit() async throws {
        let ok = DownloadRequest(url: server.url("/hop?size=1000&redirect=5"), destination: server.destination("hop.bin"))
        let tooMany = DownloadRequest(url: server.url("/far?size=1000&redirect=6"), destination: server.destination("far.bin"))
        let (first, second) = try await withDownloader { downloader in
            (await downloader.attempt(ok) { _ in }, await downloader.attempt(tooMany) { _ in })
        }
        #expect(first.outcome == .completed)
        #expect(FaultHTTPServer.fileBytes(ok.destination) == FaultHTTPServer.body(size: 1000))
        guard case .failed = second.outcome else {
            Issue.record("6 redirects ended with \(second.outcome)")
            return
        }
        #expect(!FaultHTTPServer.exists(tooMany.destination))
    }

    @Test func aSHA256MismatchFailsAndRemovesThePartFile() async throws {
        let dest = server.destination("sum.bin")
        let request = DownloadRequest(url: server.url("/sum?size=5000"), destination: dest, sha256: String(repeating: "0", count: 64))
        let result = try await withDownloader { await $0.attempt(request) { _ in } }
        guard case .failed(let reason) = result.outcome else {
            Issue.record("mismatch ended with \(result.outcome)")
            return
        }
        #expect(reason.contains("sha256 mismatch"))
        #expect(result.durableBytes == 0)
        #expect(!FaultHTTPServer.exists(dest))
        #expect(!FaultHTTPServer.exists(request.partPath))
    }

    @Test func badInputFailsWithAClearReason() async throws {
        let cases = [
            DownloadRequest(url: "not a url", destination: server.destination("a.bin")),
            DownloadRequest(url: "ftp://127.0.0.1/file", destination: server.destination("b.bin")),
            DownloadRequest(url: server.url("/x?size=10"), destination: server.destination("no/such/dir/c.bin")),
        ]
        let results = try await withDownloader { downloader in
            var results: [TransferAttemptResult] = []
            for request in cases { results.append(await downloader.attempt(request) { _ in }) }
            return results
        }
        for (request, result) in zip(cases, results) {
            guard case .failed = result.outcome else {
                Issue.record("\(request.url) -> \(request.destination) ended with \(result.outcome)")
                continue
            }
            #expect(!FaultHTTPServer.exists(request.destination))
        }
    }
}

extension TransferOutcome {
    var isRetry: Bool { if case .retry = self { true } else { false } }
}
