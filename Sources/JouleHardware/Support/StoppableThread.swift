import Dispatch
import JouleWire

/// A thread of its own for a gateway loop that sleeps in poll(2) on its socket and on a stop
/// pipe (the udev and rtnetlink monitors): C objects stay on the thread that made them.
/// `init` returns once the loop says it is ready, or throws the loop's error; `stop()` (or
/// deinit) wakes the loop through the pipe. `finished` runs on the thread when the loop ends.
final class StoppableThread: Sendable {
    private let wake: (read: Int32, write: Int32)
    private let stopped = Locked(false)

    /// - Parameter body: the loop, given the stop pipe's read end and the ready callback.
    init(
        name: String,
        body: @escaping @Sendable (_ stopFD: Int32, _ ready: @escaping @Sendable () -> Void) throws(HardwareError) -> Void,
        finished: @escaping @Sendable () -> Void
    ) throws(HardwareError) {
        wake = try Syscalls.pipe()
        let started = DispatchSemaphore(value: 0)
        let failure = Locked<HardwareError?>(nil)
        let stopFD = wake.read
        // The lock, not self: the thread must not keep this object (and its deinit's stop) alive.
        let stopped = self.stopped
        do throws(HardwareError) {
            try Syscalls.detachThread(name: name) {
                do throws(HardwareError) {
                    try body(stopFD) { started.signal() }
                } catch {
                    failure.withLock { $0 = error }
                    started.signal()
                }
                finished()
                // Under the lock, so that a later stop() knows not to write into a pipe
                // without a reader (EPIPE, and SIGPIPE where it is not ignored).
                stopped.withLock { wasStopped in
                    wasStopped = true
                    Syscalls.close(stopFD)
                }
            }
        } catch {
            Syscalls.close(stopFD)
            stopped.withLock { $0 = true }
            throw error
        }
        started.wait()
        if let error = failure.withLock({ $0 }) {
            // deinit runs for this fully initialized instance and closes the write end.
            stopped.withLock { $0 = true }
            throw error
        }
    }

    /// Wakes the loop so it returns. Safe to call more than once.
    func stop() {
        stopped.withLock { wasStopped in
            if !wasStopped { Syscalls.poke(wake.write) }
            wasStopped = true
        }
    }

    deinit {
        stop()
        // The thread closes the read end itself once it has left poll(2).
        Syscalls.close(wake.write)
    }
}
