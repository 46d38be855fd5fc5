import Foundation
import JouleTransferQueue

/// Collects what the downloader reports through `onDurable`.
final class DurableLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(Int64, String?)] = []

    func record(_ progress: DurableProgress) {
        lock.lock()
        entries.append((progress.durableBytes, progress.validators.strongETag))
        lock.unlock()
    }

    var all: [(Int64, String?)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
