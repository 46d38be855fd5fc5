import JouleWire
import JouleHardware

/// A count shared by reader threads.
package final class ManagedCounter: Sendable {
    private let value: Locked<Int>
    package init(_ start: Int) { value = Locked(start) }
    package func decrement() -> Int { value.withLock { $0 -= 1; return $0 } }
}
