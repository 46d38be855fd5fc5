import Foundation

/// Runs blocking work (a child process waited for, a pipe read to its end) on a thread of its
/// own, so a test never holds one of the few cooperative threads while it waits.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
