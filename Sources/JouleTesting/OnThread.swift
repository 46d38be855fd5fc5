import Foundation

/// Runs blocking work (a child process waited for, a pipe read to its end) on a thread of its
/// own, so a test never holds one of the few cooperative threads while it waits.
public func onThread<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { () throws(E) -> T in try body() }) }.start()
    }
    return try result.get()
}
