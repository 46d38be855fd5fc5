import AsyncHTTPClient
import JouleTransferQueue

extension TransferOutcome {
    /// The outcome of an error thrown by AsyncHTTPClient or the network: the request itself is
    /// wrong (fatal) or the network failed (retry, worded by `NetworkFailure`). Shared by downloads and uploads.
    static func thrown(_ error: any Error, url: String, maxRedirects: Int) -> TransferOutcome {
        if let error = error as? HTTPClientError {
            let fatal: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme, .redirectCycleDetected]
            if error == .redirectLimitReached { return .failed(reason: "more than \(maxRedirects) redirects") }
            if fatal.contains(error) || "\(error)".contains("unsupportedScheme") { return .failed(reason: "\(error)") }
        }
        return .retry(reason: NetworkFailure.sentence(error, url: url), retryAfter: nil)
    }
}
