import Foundation
import JouleHardware
import Synchronization
import Testing

/// Whether this process may change links and routes (root with CAP_NET_ADMIN, `ip` installed):
/// probed once by adding and removing a blackhole route in TEST-NET-3.
let canChangeRoutes: Bool = {
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") || FileManager.default.isExecutableFile(atPath: "/sbin/ip")
    else { return false }
    guard NetworkChangeMonitorTests.ip(["route", "add", "blackhole", "203.0.113.251/32"]) == 0 else { return false }
    return NetworkChangeMonitorTests.ip(["route", "del", "blackhole", "203.0.113.251/32"]) == 0
}()

/// NetworkChangeMonitor against the kernel: a real route or link change must arrive.
@Suite(.serialized)
struct NetworkChangeMonitorTests {
    static func ip(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Counts ticks on a task of its own, so a test can wait with a deadline.
    final class TickCounter: Sendable {
        private final class Log: Sendable {
            let ticks = Mutex(0)
            let ended = Mutex(false)
        }
        private let log = Log()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<Void>) {
            let log = self.log
            task = Task {
                for await _ in stream { log.ticks.withLock { $0 += 1 } }
                log.ended.withLock { $0 = true }
            }
        }

        deinit { task.cancel() }

        var ticks: Int { log.ticks.withLock { $0 } }
        var ended: Bool { log.ended.withLock { $0 } }

        /// Waits up to `timeout` for `condition`.
        func wait(timeout: Duration = .seconds(5), until condition: (TickCounter) -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition(self) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return condition(self)
        }
    }

    @Test(.enabled(if: canChangeRoutes, "needs CAP_NET_ADMIN and ip(8) to change a route"))
    func aRouteAddedAndRemovedArrives() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        #expect(Self.ip(["route", "add", "blackhole", "203.0.113.252/32"]) == 0)
        #expect(await counter.wait { $0.ticks >= 1 })
        let before = counter.ticks
        #expect(Self.ip(["route", "del", "blackhole", "203.0.113.252/32"]) == 0)
        #expect(await counter.wait { $0.ticks > before })
    }

    @Test(.enabled(if: canChangeRoutes, "needs CAP_NET_ADMIN and ip(8) to add a link"))
    func aLinkAddedAndRemovedArrives() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        let name = "jveth\(getpid() % 100000)"
        // Dummy links need a module some kernels lack; veth pairs are built in more often.
        // Without veth either, the route test above still covers the monitor.
        guard Self.ip(["link", "add", name, "type", "veth", "peer", "name", name + "p"]) == 0 else { return }
        #expect(await counter.wait { $0.ticks >= 1 })
        let before = counter.ticks
        #expect(Self.ip(["link", "del", name]) == 0)
        #expect(await counter.wait { $0.ticks > before })
    }

    /// Asleep in poll(2): with nothing changing (TEST-NET routes are only touched by the tests
    /// of this serialized suite), the thread does not wake at all.
    @Test func anIdleMonitorDoesNotWake() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        try await Task.sleep(for: .milliseconds(300))
        #expect(monitor.wakeups == 0)
    }

    @Test(.enabled(if: canChangeRoutes, "needs CAP_NET_ADMIN and ip(8) to change a route"))
    func eachChangeWakesItOnceOrTwice() async throws {
        let monitor = try NetworkChangeMonitor()
        defer { monitor.stop() }
        let counter = TickCounter(monitor.changes)
        #expect(Self.ip(["route", "add", "blackhole", "203.0.113.253/32"]) == 0)
        #expect(Self.ip(["route", "del", "blackhole", "203.0.113.253/32"]) == 0)
        #expect(await counter.wait { $0.ticks >= 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(monitor.wakeups >= 1 && monitor.wakeups <= 2)
    }

    @Test func stopEndsTheStream() async throws {
        let monitor = try NetworkChangeMonitor()
        let counter = TickCounter(monitor.changes)
        monitor.stop()
        monitor.stop()
        #expect(await counter.wait { $0.ended })
    }

    @Test func releasingTheMonitorEndsTheStream() async throws {
        var monitor: NetworkChangeMonitor? = try NetworkChangeMonitor()
        let counter = TickCounter(monitor!.changes)
        monitor = nil
        #expect(await counter.wait { $0.ended })
    }
}
