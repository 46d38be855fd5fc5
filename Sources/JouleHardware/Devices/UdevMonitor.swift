import Foundation
import Synchronization

/// Live uevents for some subsystems, as an `AsyncStream`.
///
/// libudev objects must stay on the thread that made them, so the monitor runs on a thread of
/// its own that creates, polls and releases them; only `DeviceEvent` values cross threads.
/// `stop()` (or deinit) wakes that thread through a pipe and ends the stream.
public final class UdevMonitor: Sendable {
    public let events: AsyncStream<DeviceEvent>
    private let wake: (read: Int32, write: Int32)
    private let stopped = Mutex(false)

    /// Starts listening; returns once the monitor is receiving, or throws why it cannot
    /// (no netlink in a container, no udev).
    public init(subsystems: [String]) throws(HardwareError) {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self, bufferingPolicy: .bufferingNewest(256))
        events = stream
        wake = try Syscalls.pipe()
        let started = DispatchSemaphore(value: 0)
        let failure = Mutex<HardwareError?>(nil)
        let stopFD = wake.read
        let thread = Thread {
            do throws(HardwareError) {
                try UdevGateway.runMonitor(
                    subsystems: subsystems, stopFD: stopFD, ready: { started.signal() },
                    onEvent: { continuation.yield($0) })
            } catch {
                failure.withLock { $0 = error }
                started.signal()
            }
            continuation.finish()
            Syscalls.close(stopFD)
        }
        thread.name = "joule-udev-monitor"
        thread.start()
        started.wait()
        if let error = failure.withLock({ $0 }) {
            // deinit runs for this fully initialized instance and closes the write end.
            stopped.withLock { $0 = true }
            throw error
        }
    }

    /// Ends the monitor thread and the event stream. Safe to call more than once.
    public func stop() {
        let first = stopped.withLock { wasStopped -> Bool in
            defer { wasStopped = true }
            return !wasStopped
        }
        if first { Syscalls.poke(wake.write) }
    }

    deinit {
        stop()
        // The thread closes the read end itself once it has left poll(2).
        Syscalls.close(wake.write)
    }
}
