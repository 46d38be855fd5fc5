import Testing
@testable import JouleApplication

/// What the app accepts from joule and what it sends, pinned against JouleApplication's own
/// Foundation codec before it gave way to JouleWire's `LifecycleMessage`: an app that links a
/// newer library must not start dropping packets an older joule sends. The codec's cases are
/// in JouleWireTests/LifecycleFromJouleTests.
@Suite struct PacketsFromJouleTests {
    private func connected() async throws -> (FakeJoule, FakeConnection, JouleApplication) {
        let joule = try FakeJoule()
        let app = try #require(try JouleApplication.connect(socketPath: joule.path))
        return (joule, try await joule.accept(), app)
    }

    /// Closes the app after `timeout`: a reply the library ignored then fails its request with
    /// `.closed` instead of leaving the test waiting for ever. Cancel it when done.
    private func watchdog(_ app: JouleApplication, timeout: Duration = .seconds(30)) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            app.close()
        }
    }

    @Test func anEventWithoutADeadlineArrivesWithNone() async throws {
        let (_, connection, app) = try await connected()
        let collector = EventCollector(app.events)
        try connection.send(#"{"event": "didEnterBackground", "state": "background"}"#)
        try connection.send(#"{"event": "backgroundTimeWillExpire", "state": "background", "deadline": 1700000030}"#)
        try await eventually("both events") { collector.events.count == 2 }
        #expect(collector.events == [
            LifecycleEvent(name: .didEnterBackground, state: .background, deadline: nil),
            LifecycleEvent(name: .backgroundTimeWillExpire, state: .background, deadline: 1_700_000_030),
        ])
        #expect(app.ignoredPacketCount == 0)
    }

    @Test func aTaskReplyWithoutRemainingOrWithNullStillAnswers() async throws {
        let (_, connection, app) = try await connected()
        let watchdog = watchdog(app)
        defer { watchdog.cancel() }
        async let first = app.beginBackgroundTask(name: "a")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": 5}"#)
        #expect(try await first.rawValue == 5)
        async let second = app.beginBackgroundTask(name: "b")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": 6, "remaining": null}"#)
        #expect(try await second.rawValue == 6)
        async let refused = app.beginBackgroundTask(name: "c")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": null}"#)
        #expect(try await refused == .invalid)
        #expect(app.openBackgroundTaskCount == 2)
        #expect(app.ignoredPacketCount == 0)
    }

    @Test func aTaskIdBelowOneIsIgnoredAndTheRequestKeepsWaiting() async throws {
        let (_, connection, app) = try await connected()
        let watchdog = watchdog(app)
        defer { watchdog.cancel() }
        async let id = app.beginBackgroundTask(name: "a")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": 0, "remaining": 1}"#)
        try connection.send(#"{"taskId": -2, "remaining": 1}"#)
        try connection.send(#"{"taskId": 1.5, "remaining": 1}"#)
        try await eventually("three ignored replies") { app.ignoredPacketCount == 3 }
        #expect(app.lastProtocolError?.contains("taskId") == true)
        try connection.send(#"{"taskId": 2, "remaining": 1}"#)
        #expect(try await id.rawValue == 2)
        #expect(app.openBackgroundTaskCount == 1)
    }

    @Test func anIntegralTaskIdWrittenAsAFractionOrExponentIsRead() async throws {
        let (_, connection, app) = try await connected()
        let watchdog = watchdog(app)
        defer { watchdog.cancel() }
        async let first = app.beginBackgroundTask(name: "a")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": 3.0, "remaining": 1}"#)
        #expect(try await first.rawValue == 3)
        async let second = app.beginBackgroundTask(name: "b")
        _ = try await connection.receive()
        try connection.send(#"{"taskId": 1e1, "remaining": 1}"#)
        #expect(try await second.rawValue == 10)
        #expect(app.ignoredPacketCount == 0)
    }

    @Test func aPacketOfExactlyTheLimitIsReadAndOneByteMoreIsNot() async throws {
        let (_, connection, app) = try await connected()
        let collector = EventCollector(app.events)
        let event = #"{"event": "willResignActive", "state": "inactive", "deadline": null}"#
        let limit = 4096
        let exact = event + String(repeating: " ", count: limit - event.utf8.count)
        try connection.send(exact)
        try await eventually("the event at the limit") { collector.events.count == 1 }
        try connection.send(exact + " ")
        try await eventually("the packet over the limit") { app.ignoredPacketCount == 1 }
        #expect(app.lastProtocolError?.contains("\(limit + 1)") == true)
        #expect(collector.events.count == 1)
    }

    @Test func requestsAreTheProtocolsBytes() async throws {
        let (_, connection, app) = try await connected()
        let watchdog = watchdog(app)
        defer { watchdog.cancel() }
        async let id = app.beginBackgroundTask(name: "save")
        #expect(try await connection.receive() == #"{"request":"beginBackgroundTask","name":"save"}"#)
        try connection.send(#"{"taskId": 1, "remaining": 30}"#)
        try app.endBackgroundTask(try await id)
        #expect(try await connection.receive() == #"{"request":"endBackgroundTask","taskId":1}"#)
        async let remaining = app.backgroundTimeRemaining()
        #expect(try await connection.receive() == #"{"request":"backgroundTimeRemaining"}"#)
        try connection.send(#"{"remaining": null}"#)
        #expect(try await remaining == nil)
    }

    @Test func aRequestOverTheLimitIsRefusedUnsent() async throws {
        let (_, connection, app) = try await connected()
        let watchdog = watchdog(app)
        defer { watchdog.cancel() }
        // {"request":"beginBackgroundTask","name":""} is 43 bytes.
        await #expect(throws: JouleApplicationError.requestTooLarge(bytes: 4096 + 43)) {
            try await app.beginBackgroundTask(name: String(repeating: "n", count: 4096))
        }
        async let remaining = app.backgroundTimeRemaining()
        #expect(try await connection.receive() == #"{"request":"backgroundTimeRemaining"}"#)
        try connection.send(#"{"remaining": 2.5}"#)
        #expect(try await remaining == 2.5)
    }
}
