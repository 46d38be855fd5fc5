import Foundation
import JouleApplication
import JouleWire
import JouleHardware
import Testing

/// The JouleApplication library against a real `joule run`: the test process connects to the
/// lifecycle socket of a supervised `sleep` (as the app would), and hears and asks what the
/// app would, while joule suspends and resumes the sleep for real.
@Suite struct JouleApplicationLiveTests {
    final class Recorder: JouleApplicationDelegate {
        let calls = Locked<[String]>([])
        func applicationWillResignActive(_ app: JouleApplication) { calls.withLock { $0.append("willResignActive") } }
        func applicationDidEnterBackground(_ app: JouleApplication) { calls.withLock { $0.append("didEnterBackground") } }
        func applicationWillEnterForeground(_ app: JouleApplication) { calls.withLock { $0.append("willEnterForeground") } }
        func applicationDidBecomeActive(_ app: JouleApplication) { calls.withLock { $0.append("didBecomeActive") } }
        func applicationBackgroundTimeWillExpire(_ app: JouleApplication) { calls.withLock { $0.append("backgroundTimeWillExpire") } }
    }

    @Test func theLibraryHearsARealSupervisorAndGetsBackgroundTime() async throws {
        let run = try AppRunHarness(runOptions: ["--grace", "6", "--background-budget", "12"], command: ["/bin/sleep", "60"])
        let socket = run.directory + "/run/apps/\(run.name).lifecycle"
        await run.wait(20, "the lifecycle socket") { FileManager.default.fileExists(atPath: socket) }
        let recorder = Recorder()
        guard let app = try JouleApplication.connect(socketPath: socket, delegate: recorder) else {
            Issue.record("connect returned nil for an explicit path")
            return
        }
        defer { app.close() }
        #expect(try await app.backgroundTimeRemaining() == nil)
        try await run.move("background")
        await run.wait(20, "didEnterBackground") { recorder.calls.withLock { $0.contains("didEnterBackground") } }
        #expect(app.applicationState == .background)
        let expired = Locked(false)
        let task = try await app.beginBackgroundTask(name: "save") { expired.withLock { $0 = true } }
        #expect(task != .invalid)
        if let remaining = try await app.backgroundTimeRemaining() { #expect(remaining > 0 && remaining <= 12) } else {
            Issue.record("no background time remaining in the background")
        }
        // The grace (6 s, long enough for a crowded test machine to ask for the task) passes with
        // the task open; the warning comes 5 s before the budget's end (7 s in) and runs the
        // expiration handler.
        await run.wait(20, "the expiry warning") { expired.withLock { $0 } }
        #expect(recorder.calls.withLock { $0.last } == "backgroundTimeWillExpire")
        try app.endBackgroundTask(task)
        await run.wait(20, "suspended") { await run.state() == "suspended" }
        try await run.move("foreground")
        await run.wait(20, "foreground") { recorder.calls.withLock { $0.suffix(2) == ["willEnterForeground", "didBecomeActive"] } }
        #expect(app.applicationState == .active)
        try await run.move("terminate")
        #expect(await run.exitStatus() == 143)
    }
}
