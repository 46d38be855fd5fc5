import Synchronization

/// A count shared by reader threads.
final class ManagedCounter: Sendable {
    private let value: Mutex<Int>
    init(_ start: Int) { value = Mutex(start) }
    func decrement() -> Int { value.withLock { $0 -= 1; return $0 } }
}
