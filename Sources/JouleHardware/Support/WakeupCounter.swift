import Synchronization

/// How often a monitor's thread came back from poll(2): flat while nothing happens, for tests
/// and `make bench` of frugality (an event-driven source costs no wakeups when idle).
final class WakeupCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }

    var value: Int { count.load(ordering: .relaxed) }
}
