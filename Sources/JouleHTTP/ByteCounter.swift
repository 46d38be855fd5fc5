import JouleWire
import JouleHardware

/// Bytes moved so far by one attempt (received by a download, handed to the connection by an
/// upload), shared between the task moving them and the watchdog that enforces the floor.
final class ByteCounter: Sendable {
    private let total = Locked<Int64>(0)
    func add(_ count: Int) { total.withLock { $0 += Int64(count) } }
    var value: Int64 { total.withLock { $0 } }
}
