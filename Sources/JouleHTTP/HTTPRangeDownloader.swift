import JouleHardware
import JouleTransferQueue
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix

/// One attempt of a resumable GET into `DEST.part` (issue 13 "HTTP, correctly"). Streams the
/// body itself, since AsyncHTTPClient's FileDownloadDelegate writes from offset 0, ignores the
/// status and never fsyncs: the head is checked by `ResponseHeadCheck` before the first write;
/// bytes go down with pwrite and count only once fsynced and reported through `onDurable` (at
/// most every `syncBytes` or `syncInterval`); the finished file is checked for length and
/// sha256 before a durable rename. The queue owns scheduling: this runs one attempt and says
/// how it ended.
///
/// Throughput (measured against curl by `make bench`): the attempt runs on its connection's
/// event loop, so each body chunk (AsyncHTTPClient buffers one) is written where NIO read it,
/// with no thread hop; fsync, hashing and the rename run on NIOThreadPool, and one fsync
/// overlaps the next batch's arrival. pwrite stays on the loop (a page-cache copy).
public final class HTTPRangeDownloader: Sendable {
    public let tuning: TransferTuning
    /// Durable-progress cadence: fsync and report after this many bytes or this long.
    public let syncBytes: Int64
    public let syncInterval: Duration
    private let client: HTTPClient

    /// The daemon's cadence: a crash costs at most this much re-downloading.
    public static let defaultSyncBytes: Int64 = 1 << 20
    public static let defaultSyncInterval: Duration = .seconds(1)

    public init(
        tuning: TransferTuning = TransferTuning(), syncBytes: Int64 = defaultSyncBytes, syncInterval: Duration = defaultSyncInterval
    ) {
        self.tuning = tuning
        self.syncBytes = syncBytes
        self.syncInterval = syncInterval
        let configuration = TransferClientConfiguration.make(
            redirects: tuning.maxRedirects > 0 ? .follow(max: tuning.maxRedirects, allowCycles: false) : .disallow)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the connection pool; call once, after the last attempt.
    public func shutdown() async throws { try await client.shutdown() }

    /// Runs one attempt. `onDurable` is awaited (off the event loop): the downloader writes on
    /// only after the queue has committed what it reported. Bytes past the reported offset may
    /// already be on disk; after a crash they are cut back to the committed durableBytes.
    public func attempt(
        _ request: DownloadRequest, onDurable: @escaping @Sendable (DurableProgress) async -> Void
    ) async -> TransferAttemptResult {
        let counter = ByteCounter()
        // MultiThreadedEventLoopGroup.any() answers the calling loop, so the connection opens on it.
        let executor = EventLoopTaskExecutor(client.eventLoopGroup.next())
        let result = await ThroughputWatchdog.run(tuning: tuning, counter: counter) {
            await withTaskExecutorPreference(executor) {
                await self.run(request, loop: executor.loop, counter: counter, onDurable: onDurable)
            }
        }
        // Nothing to resume (a refused connection, an error before the first fsync): no empty
        // `.part` is left beside the destination while the transfer waits (issue 32). A
        // failure's `.part` is the queue's to remove, and one this attempt could not open (a
        // symlink) is left alone.
        if result.durableBytes == 0, result.outcome.isTransient {
            try? PartFile.remove(destination: request.destination, owner: request.owner)
        }
        return result
    }

    /// The attempt itself; never throws: every failure becomes an outcome.
    private func run(
        _ request: DownloadRequest, loop: any EventLoop, counter: ByteCounter,
        onDurable: @escaping @Sendable (DurableProgress) async -> Void
    ) async -> TransferAttemptResult {
        let startDurable = request.durableBytes
        var validators = request.validators
        var durable = request.durableBytes
        func result(_ outcome: TransferOutcome) -> TransferAttemptResult {
            TransferAttemptResult(outcome: outcome, durableBytes: durable, validators: validators, progressed: durable > startDurable)
        }
        let part: PartFile
        do {
            part = try PartFile(destination: request.destination, owner: request.owner)
            // After a crash the file may hold bytes past the last commit: cut them off. A file
            // shorter than the commit (removed or replaced) cannot be resumed.
            let size = try part.size()
            if size < durable {
                durable = 0
            }
            if size != durable { try part.truncate(to: durable) }
        } catch {
            return result(.failed(reason: "\(error)"))
        }
        defer { part.close() }

        /// The queue's commit (a database transaction) runs off the event loop.
        func report(_ progress: DurableProgress) async {
            await withTaskExecutorPreference(globalConcurrentExecutor) { await onDurable(progress) }
        }
        var offset: Int64 = 0
        var lastSync = ContinuousClock.now
        // One fsync at a time runs on the thread pool while the body keeps arriving: the
        // network and the disk overlap, and the event loop never waits for an fsync.
        var inflight: (offset: Int64, done: EventLoopFuture<Void>)?
        /// Starts an fsync of everything written so far.
        func startSync() throws(HardwareError) {
            let syncer = try part.syncer()
            inflight = (offset, NIOThreadPool.singleton.runIfActive(eventLoop: loop) { try syncer.sync() })
            lastSync = .now
        }
        /// Waits for the running fsync and hands its offset to the queue.
        func finishSync() async throws {
            guard let (target, done) = inflight else { return }
            inflight = nil
            try await done.get()
            durable = target
            await report(DurableProgress(durableBytes: durable, validators: validators))
        }
        /// Everything written so far made durable and reported.
        func commit() async throws {
            try await finishSync()
            guard durable != offset else { return }
            try startSync()
            try await finishSync()
        }

        // At most two requests: a resume, then (if its answer cannot be trusted) one from 0.
        var resumeFrom = durable
        for _ in 0..<2 {
            // Resume only with a validator for If-Range. The length need not be known yet (a
            // chunked body cut at its end holds every byte): the 206 or 416 tells it.
            if resumeFrom > 0 && validators.ifRange == nil { resumeFrom = 0 }
            var http = HTTPClientRequest(url: request.url)
            http.method = .GET
            for field in request.headers where !["range", "if-range", "accept-encoding"].contains(field.name.lowercased()) {
                http.headers.add(name: field.name, value: field.value)
            }
            http.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
            if resumeFrom > 0, let ifRange = validators.ifRange {
                http.headers.replaceOrAdd(name: "Range", value: "bytes=\(resumeFrom)-")
                http.headers.replaceOrAdd(name: "If-Range", value: ifRange)
            }
            do {
                // No overall deadline: the throughput watchdog ends attempts that stall.
                let response = try await client.execute(http, deadline: .distantFuture)
                let head = ResponseHeadCheck.Head(
                    status: Int(response.status.code),
                    contentRange: response.headers.first(name: "content-range"),
                    contentLength: response.headers.first(name: "content-length").flatMap { Int64($0) },
                    contentEncoding: response.headers.first(name: "content-encoding"),
                    etag: response.headers.first(name: "etag"),
                    lastModified: response.headers.first(name: "last-modified"),
                    retryAfter: response.headers.first(name: "retry-after"),
                    location: response.headers.first(name: "location"))
                switch ResponseHeadCheck.evaluate(head, requestedOffset: resumeFrom, stored: validators) {
                case .fail(let reason):
                    return result(.failed(reason: reason))
                case .retry(let reason, let retryAfter):
                    return result(.retry(reason: reason, retryAfter: retryAfter))
                case .restart:
                    try part.truncate(to: 0)
                    try part.sync()
                    durable = 0
                    validators = TransferValidators()
                    await report(DurableProgress(durableBytes: 0, validators: validators))
                    resumeFrom = 0
                    continue
                case .alreadyComplete:
                    offset = durable
                    validators.totalLength = durable
                case .write(let start, let fresh):
                    if start == 0 && (durable != 0 || fresh != validators) {
                        // A new representation: record it at 0 bytes before the first write.
                        try part.truncate(to: 0)
                        try part.sync()
                        durable = 0
                        validators = fresh
                        await report(DurableProgress(durableBytes: 0, validators: validators))
                    } else if start > 0 {
                        // A resume that told the length for the first time; stored with the next commit.
                        validators = fresh
                    }
                    offset = start
                    for try await buffer in response.body {
                        try buffer.withUnsafeReadableBytes { bytes throws(HardwareError) in
                            try part.write(bytes, at: offset)
                        }
                        offset += Int64(buffer.readableBytes)
                        counter.add(buffer.readableBytes)
                        if offset - (inflight?.offset ?? durable) >= syncBytes || ContinuousClock.now - lastSync >= syncInterval {
                            // The previous fsync had a whole batch's time to finish.
                            try await finishSync()
                            try startSync()
                        }
                    }
                    try await commit()
                }
                return try await finish(request, part: part, size: offset, validators: validators, result: result)
            } catch let error as HardwareError {
                // The descriptor closes on return: no fsync may still be using it.
                try? await finishSync()
                return result(.failed(reason: "\(error)"))
            } catch {
                // Keep what arrived before the failure (a cut body, a reset, our own cancel).
                do { try await commit() } catch { return result(.failed(reason: "\(error)")) }
                return result(.thrown(error, url: request.url, maxRedirects: tuning.maxRedirects))
            }
        }
        return result(.retry(reason: "the server's answers to a request from 0 could not be trusted either", retryAfter: nil))
    }

    /// Length and sha256 checks, then the rename into place.
    private func finish(
        _ request: DownloadRequest, part: PartFile, size: Int64, validators: TransferValidators,
        result: (TransferOutcome) -> TransferAttemptResult
    ) async throws -> TransferAttemptResult {
        if let total = validators.totalLength, size != total {
            return result(.retry(reason: "body ended at \(size) of \(total) bytes", retryAfter: nil))
        }
        if let expected = request.sha256?.lowercased() {
            // Seconds for a large file: on the thread pool, not the event loop.
            let reader = try part.syncer()
            let actual = try await NIOThreadPool.singleton.runIfActive { try reader.sha256() }
            guard actual == expected else {
                // The bytes are whole and wrong: keeping them would only resume into the same file.
                try part.truncate(to: 0)
                try part.sync()
                part.close()
                try part.remove()
                var failed = result(.failed(reason: "sha256 mismatch: expected \(expected), got \(actual)"))
                failed.durableBytes = 0
                return failed
            }
        }
        part.close()
        let placer = part.placer()
        try await NIOThreadPool.singleton.runIfActive { try placer.moveIntoPlace() }
        return result(.completed)
    }
}
