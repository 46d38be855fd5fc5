import JouleHardware

/// A count shared by reader threads.
final class ManagedCounter: Sendable {
    private let value: Locked<Int>
    init(_ start: Int) { value = Locked(start) }
    func decrement() -> Int { value.withLock { $0 -= 1; return $0 } }
}
