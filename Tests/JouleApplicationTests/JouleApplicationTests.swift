import Foundation
import Testing
@testable import JouleApplication
import JouleWire

/// The app side against a fake joule. Nothing here measures time: every wait is bounded and
/// fails instead of hanging.
@Suite struct JouleApplicationTests {
    private func connected(
        delegate: (any JouleApplicationDelegate)? = nil
    ) async throws -> (FakeJoule, FakeConnection, JouleApplication) {
        let joule = try FakeJoule()
        let app = try #require(try JouleApplication.connect(socketPath: joule.path, delegate: delegate))
        let connection = try await joule.accept()
        return (joule, connection, app)
    }

    private func event(_ name: String, _ state: String, deadline: String = "null") -> String {
        #"{"event": "\#(name)", "state": "\#(state)", "deadline": \#(deadline)}"#
    }

    @Test func connectsThroughTheEnvironmentVariableAndIsNilWithoutIt() async throws {
        // The only test that touches the variable, so parallel tests cannot race on it.
        let joule = try FakeJoule()
        FakeJoule.setEnvironment(joule.path)
        defer { FakeJoule.setEnvironment(nil) }
        let app = try #require(try JouleApplication.connect())
        #expect(app.socketPath == joule.path)
        #expect(app.applicationState == .active)
        let connection = try await joule.accept()
        try connection.send(event("willResignActive", "inactive"))
        try await eventually("the state to follow") { app.applicationState == .inactive }

        FakeJoule.setEnvironment("")
        #expect(try JouleApplication.connect() == nil)
        FakeJoule.setEnvironment(nil)
        #expect(try JouleApplication.connect() == nil)
    }

    @Test func connectFailureNamesThePathAndErrno() throws {
        let joule = try FakeJoule()
        do {
            _ = try JouleApplication.connect(socketPath: joule.absentPath)
            Issue.record("connect succeeded with nothing listening")
        } catch let error as JouleApplicationError {
            guard case .connectFailed(let path, let errno, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(path == joule.absentPath)
            #expect(errno == ENOENT)
            #expect(error.description.contains(joule.absentPath))
            #expect(error.description.contains("errno \(ENOENT)"))
        }
    }

    @Test func delegateHearsForegroundBackgroundForegroundInOrder() async throws {
        let delegate = RecordingDelegate()
        let (_, connection, app) = try await connected(delegate: delegate)
        let collector = EventCollector(app.events)
        #expect(app.applicationState == .active)
        try connection.send(event("willResignActive", "inactive"))
        try connection.send(event("didEnterBackground", "background", deadline: "1700000005.125"))
        try await eventually("background") { delegate.entries.count == 2 }
        #expect(app.applicationState == .background)
        try connection.send(event("willEnterForeground", "inactive"))
        try connection.send(event("didBecomeActive", "active"))
        try await eventually("four callbacks") { delegate.entries.count == 4 && collector.events.count == 4 }
        #expect(delegate.entries == [
            "willResignActive:inactive", "didEnterBackground:background",
            "willEnterForeground:inactive", "didBecomeActive:active",
        ])
        #expect(app.applicationState == .active)
        #expect(collector.events.map(\.name) == [
            .willResignActive, .didEnterBackground, .willEnterForeground, .didBecomeActive,
        ])
        #expect(collector.events[1].deadline == 1_700_000_005.125)
        #expect(collector.events[0].deadline == nil)
        #expect(app.ignoredPacketCount == 0)
    }

    @Test func beginBackgroundTaskReturnsJoulesTaskId() async throws {
        let (_, connection, app) = try await connected()
        async let id = app.beginBackgroundTask(name: "save")
        let request = try await connection.receiveObject()
        #expect(request["request"] as? String == "beginBackgroundTask")
        #expect(request["name"] as? String == "save")
        #expect(request.count == 2)
        try connection.send(#"{"taskId": 7, "remaining": 29.5}"#)
        #expect(try await id == BackgroundTaskIdentifier(rawValue: 7))
        #expect(app.openBackgroundTaskCount == 1)
    }

    @Test func refusedTaskIsInvalid() async throws {
        let (_, connection, app) = try await connected()
        async let id = app.beginBackgroundTask(name: "late")
        _ = try await connection.receiveObject()
        try connection.send(#"{"taskId": null, "remaining": 0}"#)
        #expect(try await id == .invalid)
        #expect(app.openBackgroundTaskCount == 0)
        try app.endBackgroundTask(.invalid)  // a no-op, as on iOS
    }

    @Test func expirationHandlerRunsOnceBeforeTheDelegate() async throws {
        let delegate = RecordingDelegate()
        let (_, connection, app) = try await connected(delegate: delegate)
        async let id = app.beginBackgroundTask(name: "upload") { delegate.append("handler") }
        _ = try await connection.receiveObject()
        try connection.send(#"{"taskId": 4, "remaining": 30}"#)
        #expect(try await id.rawValue == 4)
        try connection.send(event("backgroundTimeWillExpire", "background", deadline: "1700000030"))
        try await eventually("the delegate") { delegate.entries.count == 2 }
        #expect(delegate.entries == ["handler", "backgroundTimeWillExpire:background"])
        // This handler did not end its task; a second warning must not call it again.
        try connection.send(event("backgroundTimeWillExpire", "background", deadline: "1700000030"))
        try await eventually("the second warning") { delegate.entries.count == 3 }
        #expect(delegate.entries == [
            "handler", "backgroundTimeWillExpire:background", "backgroundTimeWillExpire:background",
        ])
    }

    @Test func expirationHandlerThatEndsItsTaskSendsTheEnd() async throws {
        let (_, connection, app) = try await connected()
        let taskId = Locked(BackgroundTaskIdentifier.invalid)
        async let id = app.beginBackgroundTask(name: "sync") {
            try? app.endBackgroundTask(taskId.withLock { $0 })
        }
        _ = try await connection.receiveObject()
        try connection.send(#"{"taskId": 2, "remaining": 10.5}"#)
        let granted = try await id
        taskId.withLock { $0 = granted }
        try connection.send(event("backgroundTimeWillExpire", "background", deadline: "1700000030.5"))
        let end = try await connection.receiveObject()
        #expect(end["request"] as? String == "endBackgroundTask")
        #expect(end["taskId"] as? Int == 2)
        #expect(app.openBackgroundTaskCount == 0)
    }

    @Test func backgroundTimeRemainingIsNullOrANumber() async throws {
        let (_, connection, app) = try await connected()
        async let foreground = app.backgroundTimeRemaining()
        let request = try await connection.receiveObject()
        #expect(request["request"] as? String == "backgroundTimeRemaining")
        #expect(request.count == 1)
        try connection.send(#"{"remaining": null}"#)
        #expect(try await foreground == nil)

        async let background = app.backgroundTimeRemaining()
        _ = try await connection.receiveObject()
        try connection.send(#"{"remaining": 17.375}"#)
        #expect(try await background == 17.375)
    }

    @Test func eventsBetweenRequestsAndRepliesStillDecode() async throws {
        let delegate = RecordingDelegate()
        let (_, connection, app) = try await connected(delegate: delegate)
        let collector = EventCollector(app.events)
        // Two requests in flight, replies in request order with events between them.
        async let task = app.beginBackgroundTask(name: "a")
        _ = try await connection.receiveObject()
        async let remaining = app.backgroundTimeRemaining()
        _ = try await connection.receiveObject()
        try connection.send(event("willResignActive", "inactive"))
        try connection.send(event("didEnterBackground", "background", deadline: "1700000005"))
        try connection.send(#"{"taskId": 1, "remaining": 35}"#)
        try connection.send(event("backgroundTimeWillExpire", "background", deadline: "1700000035"))
        try connection.send(#"{"remaining": 4.5}"#)
        #expect(try await task.rawValue == 1)
        #expect(try await remaining == 4.5)
        try await eventually("three events") { collector.events.count == 3 }
        #expect(collector.events.map(\.name) == [.willResignActive, .didEnterBackground, .backgroundTimeWillExpire])
        #expect(app.applicationState == .background)
        #expect(app.ignoredPacketCount == 0)
    }

    @Test func malformedAndOversizedPacketsAreIgnored() async throws {
        let (_, connection, app) = try await connected()
        let collector = EventCollector(app.events)
        try connection.send("not json")
        // A well-formed event, but 5000 bytes: over the limit, so ignored like garbage.
        let head = #"{"event": "didEnterBackground", "state": "background", "deadline": null, "pad": ""#
        let oversized = head + String(repeating: "x", count: 5000 - head.utf8.count - 2) + #""}"#
        #expect(oversized.utf8.count == 5000)
        try connection.send(oversized)
        try await eventually("the oversized packet") { app.ignoredPacketCount == 2 }
        #expect(app.lastProtocolError?.contains("5000") == true)
        try connection.send(#"{"event": "noSuchEvent", "state": "active", "deadline": null}"#)
        try connection.send(#"{"remaining": 3}"#)  // a reply nobody asked for
        try connection.send(event("willResignActive", "inactive"))
        try await eventually("the valid event") { collector.events.count == 1 }
        #expect(collector.events == [LifecycleEvent(name: .willResignActive, state: .inactive)])
        #expect(app.ignoredPacketCount == 4)
        #expect(app.applicationState == .inactive)
    }

    @Test func streamsFinishAndRequestsFailWhenJouleCloses() async throws {
        let (_, connection, app) = try await connected()
        let first = EventCollector(app.events)
        let second = EventCollector(app.events)
        try connection.send(event("willResignActive", "inactive"))
        try await eventually("both streams") { first.events.count == 1 && second.events.count == 1 }
        async let pending = app.beginBackgroundTask(name: "never answered")
        _ = try await connection.receiveObject()
        connection.close()
        try await eventually("the streams to finish") { first.finished && second.finished }
        do {
            _ = try await pending
            Issue.record("a request left unanswered at the close did not fail")
        } catch {
            #expect(error as? JouleApplicationError == .closed)
        }
        let late = EventCollector(app.events)
        try await eventually("a stream opened after the close to finish") { late.finished }
        await #expect(throws: JouleApplicationError.closed) { try await app.backgroundTimeRemaining() }
    }

    @Test func endBackgroundTaskSendsItsJSONOnce() async throws {
        let (_, connection, app) = try await connected()
        async let id = app.beginBackgroundTask(name: "write")
        _ = try await connection.receiveObject()
        try connection.send(#"{"taskId": 3, "remaining": 30}"#)
        let task = try await id
        try app.endBackgroundTask(task)
        let text = try await connection.receive()
        let end = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(end.count == 2)
        #expect(end["request"] as? String == "endBackgroundTask")
        #expect(end["taskId"] as? Int == 3)
        // Ending it again sends nothing: the next packet joule sees is the next request.
        try app.endBackgroundTask(task)
        try app.endBackgroundTask(.invalid)
        async let remaining = app.backgroundTimeRemaining()
        let next = try await connection.receiveObject()
        #expect(next["request"] as? String == "backgroundTimeRemaining")
        try connection.send(#"{"remaining": null}"#)
        #expect(try await remaining == nil)
    }

    @Test func closeEndsTheConnectionAndItsTasks() async throws {
        let (_, connection, app) = try await connected()
        let collector = EventCollector(app.events)
        async let id = app.beginBackgroundTask(name: "t")
        _ = try await connection.receiveObject()
        try connection.send(#"{"taskId": 1, "remaining": 30}"#)
        let task = try await id
        app.close()
        try await connection.receiveEndOfFile()
        #expect(app.openBackgroundTaskCount == 0)
        try await eventually("the stream to finish") { collector.finished }
        try app.endBackgroundTask(task)  // ended with the connection: a no-op
        app.close()  // idempotent
    }

    @Test func deinitClosesTheConnection() async throws {
        let joule = try FakeJoule()
        // Created and dropped in a function, so nothing here keeps it alive.
        func connectAndDrop() throws {
            let app = try #require(try JouleApplication.connect(socketPath: joule.path))
            _ = app.applicationState
        }
        try connectAndDrop()
        let connection = try await joule.accept()
        try await connection.receiveEndOfFile()
    }

    @Test func everyEventNameArrivesEvenThoseJouleKeepsToItsLog() async throws {
        // A newer joule that sends the five an app does not hear today is not "malformed".
        let (_, connection, app) = try await connected()
        let collector = EventCollector(app.events)
        for name in LifecycleEventName.allCases {
            try connection.send(event(name.rawValue, "suspended", deadline: "1.5"))
        }
        try await eventually("every event") { collector.events.count == LifecycleEventName.allCases.count }
        #expect(collector.events == LifecycleEventName.allCases.map { LifecycleEvent(name: $0, state: .suspended, deadline: 1.5) })
        #expect(app.ignoredPacketCount == 0)
        #expect(app.applicationState == .suspended)
    }
}
