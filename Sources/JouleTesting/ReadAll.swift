import Foundation

/// Drains a pipe on a background thread, so a child writing more than a pipe holds to one
/// stream cannot stall while another is read.
final class ReadAll: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            let all = handle.readDataToEndOfFile()
            lock.withLock { data = all }
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return lock.withLock { data }
    }
}
