import JoulePolicy
import Synchronization

/// The daemon's `TransferTransport`: GETs through `HTTPRangeDownloader`. One downloader per
/// distinct tuning, since AsyncHTTPClient fixes the redirect limit per client and SIGHUP may
/// change it; the old clients close at shutdown.
public final class HTTPTransferTransport: TransferTransport {
    private let downloaders = Mutex<[TransferTuning: HTTPRangeDownloader]>([:])

    public init() {}

    public func attempt(
        _ transfer: Transfer, tuning: TransferTuning, onDurable: @escaping @Sendable (DurableProgress) async -> Void
    ) async -> TransferAttemptResult {
        guard let destination = transfer.destination, transfer.method == .get else {
            return TransferAttemptResult(
                outcome: .failed(reason: "\(transfer.method.rawValue) uploads are not supported by this joule"),
                durableBytes: transfer.durableBytes, validators: transfer.validators, progressed: false)
        }
        let request = DownloadRequest(
            url: transfer.url, headers: transfer.headers.map { .init(name: $0.name, value: $0.value) },
            destination: destination, sha256: transfer.sha256, validators: transfer.validators,
            durableBytes: transfer.durableBytes)
        return await downloader(for: tuning).attempt(request, onDurable: onDurable)
    }

    private func downloader(for tuning: TransferTuning) -> HTTPRangeDownloader {
        downloaders.withLock { cache in
            if let existing = cache[tuning] { return existing }
            let made = HTTPRangeDownloader(tuning: tuning)
            cache[tuning] = made
            return made
        }
    }

    public func shutdown() async {
        let all = downloaders.withLock { cache in
            defer { cache.removeAll() }
            return Array(cache.values)
        }
        for downloader in all { try? await downloader.shutdown() }
    }
}
