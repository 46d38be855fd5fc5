/// Moves one transfer's bytes, one attempt at a time; the scheduler decides when and whether
/// to try again (`RetryPolicy`). The daemon's implementation is JouleHTTP's
/// `HTTPTransferTransport`, kept out of this module so only that target builds against NIO.
public protocol TransferTransport: Sendable {
    /// One attempt at `transfer`: a download resumes from its `durableBytes` under its
    /// validators; an upload sends its source from the start. `onDurable` is awaited, so the
    /// queue commits each durable offset before the transport writes on. Never throws: every
    /// failure is an outcome. Task cancellation ends the attempt promptly, keeping what is durable.
    func attempt(
        _ transfer: Transfer, tuning: TransferTuning, onDurable: @escaping @Sendable (DurableProgress) async -> Void
    ) async -> TransferAttemptResult

    /// Closes connections; called once, after the last attempt.
    func shutdown() async
}
