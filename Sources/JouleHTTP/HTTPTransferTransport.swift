import JouleWire
import JouleHardware
import JouleTransferQueue

/// The daemon's `TransferTransport`: GETs through `HTTPRangeDownloader`, PUTs and POSTs
/// through `HTTPUploader`. One pair per distinct tuning, since AsyncHTTPClient fixes the
/// redirect limit per client and SIGHUP may change it; the old clients close at shutdown.
public final class HTTPTransferTransport: TransferTransport {
    private struct Clients: Sendable {
        let downloader: HTTPRangeDownloader
        let uploader: HTTPUploader
    }

    private let clients = Locked<[TransferTuning: Clients]>([:])

    public init() {}

    public func attempt(
        _ transfer: Transfer, tuning: TransferTuning, onDurable: @escaping @Sendable (DurableProgress) async -> Void
    ) async -> TransferAttemptResult {
        // A transfer stored before its URL was checked this strictly fails instead of reaching
        // the HTTP stack, which traps on a port beyond 16 bits.
        do throws(TransferRequest.Invalid) { try TransferRequest.checkURL(transfer.url) } catch {
            return refuse(transfer, error.message)
        }
        if transfer.method.isUpload {
            guard let source = transfer.uploadSource else {
                return refuse(transfer, "a \(transfer.method.rawValue) transfer without an upload source")
            }
            let request = UploadRequest(
                url: transfer.url, method: transfer.method, headers: transfer.headers, source: source,
                owner: UserAccount.acting(for: transfer.ownerUID))
            return await self.clients(for: tuning).uploader.attempt(request)
        }
        guard let destination = transfer.destination else { return refuse(transfer, "a download without a destination") }
        let request = DownloadRequest(
            url: transfer.url, headers: transfer.headers.map { .init(name: $0.name, value: $0.value) },
            destination: destination, sha256: transfer.sha256, validators: transfer.validators,
            durableBytes: transfer.durableBytes, owner: UserAccount.acting(for: transfer.ownerUID))
        return await self.clients(for: tuning).downloader.attempt(request, onDurable: onDurable)
    }

    /// Cannot happen for a transfer that passed TransferRequest's validation; failed, not trapped.
    private func refuse(_ transfer: Transfer, _ reason: String) -> TransferAttemptResult {
        TransferAttemptResult(
            outcome: .failed(reason: reason), durableBytes: transfer.durableBytes, validators: transfer.validators, progressed: false)
    }

    private func clients(for tuning: TransferTuning) -> Clients {
        clients.withLock { cache in
            if let existing = cache[tuning] { return existing }
            let made = Clients(downloader: HTTPRangeDownloader(tuning: tuning), uploader: HTTPUploader(tuning: tuning))
            cache[tuning] = made
            return made
        }
    }

    public func shutdown() async {
        let all = clients.withLock { cache in
            defer { cache.removeAll() }
            return Array(cache.values)
        }
        for pair in all {
            try? await pair.downloader.shutdown()
            try? await pair.uploader.shutdown()
        }
    }
}
