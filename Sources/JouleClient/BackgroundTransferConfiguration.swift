import JouleTransferQueue

/// How a `BackgroundTransferSession` queues its transfers, after
/// `URLSessionConfiguration.background(withIdentifier:)`: the identifier names the session in
/// the daemon, so a program that restarts and connects with the same one finds its earlier
/// transfers.
public struct BackgroundTransferConfiguration: Sendable, Hashable {
    /// Stamped on every transfer as its `session` (1 to 255 bytes).
    public let identifier: String
    /// Wait for the best time: on AC, unmetered, not in Low Power Mode, thermal at most fair,
    /// battery not low.
    public var isDiscretionary = false
    /// false: only over an unmetered network (`unmeteredOnly`), as NSURLSession's
    /// `allowsExpensiveNetworkAccess`.
    public var allowsExpensiveNetworkAccess = true
    /// Seconds from `add` until a transfer fails unfinished; NSURLSession's 7 days by default.
    public var timeoutIntervalForResource: Double = Transfer.defaultTimeout

    public init(identifier: String) { self.identifier = identifier }

    /// The configuration of a background session named `identifier`.
    public static func background(withIdentifier identifier: String) -> BackgroundTransferConfiguration {
        BackgroundTransferConfiguration(identifier: identifier)
    }

    /// `request` as this session sends it: stamped with the identifier; discretionary or
    /// unmetered-only when either the request or the configuration asks; the configuration's
    /// timeout unless the request has one.
    public func stamp(_ request: TransferRequest) -> TransferRequest {
        var request = request
        request.session = identifier
        request.discretionary = request.discretionary || isDiscretionary
        request.unmeteredOnly = request.unmeteredOnly || !allowsExpensiveNetworkAccess
        request.timeout = request.timeout ?? timeoutIntervalForResource
        return request
    }
}
