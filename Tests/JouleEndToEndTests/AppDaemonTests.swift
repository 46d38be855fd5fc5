import Foundation
import JouleWire
import JouleHardware
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule run` registered with `joule daemon` (org.joule.Apps1 on a private system bus): the
/// daemon supervises the app, `joule app` reaches it over D-Bus, logind's LockedHint
/// (python3-dbusmock's logind template) makes the user's apps inactive, Low Power Mode halves
/// the grace, and a joule run that dies takes its app out of supervision, continued.
@Suite(.serialized) struct AppDaemonTests {
    private func runUnder(_ daemon: DaemonHarness, _ runOptions: [String], appOptions: [String] = []) throws -> AppRunHarness {
        try AppRunHarness(runOptions: runOptions, appOptions: appOptions, extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address])
    }

    @Test func theDaemonSupervisesARegisteredAppOverDBus() async throws {
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let run = try runUnder(daemon, ["--grace", "0.3"])
        guard await run.waitReady() else { return }
        #expect(try await run.entry()?["state"] as? String == "active")
        // No control socket of its own: it is the daemon's.
        #expect(!FileManager.default.fileExists(atPath: run.directory + "/run/apps/\(run.name).control"))
        let client = try await daemon.client()
        let events = try await client.signals(matching: "type='signal',interface='org.joule.Apps1',member='Event'")
        try await run.move("background")
        await run.wait(20, "suspended by the daemon") { await run.state() == "suspended" }
        #expect(run.processState() == "T")
        #expect(run.heardEvents == ["willResignActive", "didEnterBackground"])
        try await run.move("foreground")
        await run.wait(20, "foreground") { run.heardEvents.count == 4 }
        #expect(run.heardEvents.suffix(2) == ["willEnterForeground", "didBecomeActive"])
        #expect(run.processState() != "T")
        var seen: [String] = []
        for await signal in events {
            if let text = signal.arguments.first?.stringValue, let event = (try? JSONParser.parse(text))?["event"]?.stringValue {
                seen.append(event)
            }
            if seen.contains("didBecomeActive") { break }
        }
        #expect(seen.contains("suspended"))
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
        await run.wait(20, "unregistered") { (try? await run.entry()) == nil }
        await client.close()
    }

    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func aLockedSessionMakesItsUsersAppsInactive() async throws {
        let daemon = try await DaemonHarness()
        let logind = try await DBusMock(.logind, address: daemon.bus.address)
        defer { logind.stop() }
        try await daemon.start()
        defer { daemon.end() }
        let run = try runUnder(daemon, [])
        guard await run.waitReady() else { return }
        let session = try await logind.call(
            "AddSession", arguments: [.string("c1"), .string("seat0"), .uint32(getuid()), .string("tester"), .bool(true)])
        guard let path = session.first?.unwrapped.stringValue else {
            Issue.record("AddSession returned \(session)")
            return
        }
        try await logind.call("SetLockedHint", interface: "org.freedesktop.login1.Session", path: path, arguments: [.bool(true)])
        await run.wait(20, "willResignActive") { run.heardEvents == ["willResignActive"] }
        #expect(await run.state() == "inactive")
        try await daemon.waitForLog("is locked or idle: its apps become inactive")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    @Test func lowPowerModeHalvesTheGraceAndAJouleRunThatDiesReleasesItsApp() async throws {
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let lowpower = try await CLIHarness.run(["lowpower", "on"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address])
        #expect(lowpower.status == 0, "\(lowpower.stderr)")
        try await daemon.waitForLog("Low Power Mode on")
        let run = try runUnder(daemon, ["--grace", "4"])
        guard await run.waitReady() else { return }
        try await run.move("background")
        await run.wait(20, "didEnterBackground") { run.heardEvents.contains("didEnterBackground") }
        let heard = run.log.compactMap { $0["heard"] as? [String: Any] }.first { $0["event"] as? String == "didEnterBackground" }
        if let since = try await run.entry()?["backgroundSince"] as? Double, let deadline = heard?["deadline"] as? Double {
            #expect(abs(deadline - since - 2) < 0.01)
        } else {
            Issue.record("no deadline or backgroundSince: \(String(describing: heard))")
        }
        try await run.move("suspend")
        await run.wait(20, "stopped") { run.processState() == "T" }
        run.signalJoule(SIGKILL)
        // The daemon's log is the proof joule run died: Foundation's Process can go on calling
        // it running while the stopped app holds an inherited end of its exit socket (the test
        // failed three times this session, each under load, waiting 20 s for that).
        try await daemon.waitForLog("left the bus; releasing it")
        await run.wait(20, "continued") { run.processState() != "T" }
    }

    @Test func movesAreRefusedForUnknownAppsAndOtherUsers() async throws {
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let client = try await daemon.client()
        do {
            _ = try await client.call(destination: "org.joule.Apps1", path: "/org/joule/Apps1", interface: "org.joule.Apps1",
                                      member: "Background", arguments: [.string("nope")])
            Issue.record("an unknown app was moved")
        } catch {
            #expect("\(error)".contains("org.joule.Apps1.Error.UnknownApp"))
        }
        do {
            _ = try await client.call(destination: "org.joule.Apps1", path: "/org/joule/Apps1", interface: "org.joule.Apps1",
                                      member: "Register", arguments: [.variantDictionary([("name", .string("x")), ("grace", .string("5"))])])
            Issue.record("a bad option was taken")
        } catch {
            #expect("\(error)".contains("InvalidArgs"))
            #expect("\(error)".contains("grace"))
        }
        do {
            _ = try await client.call(destination: "org.joule.Apps1", path: "/org/joule/Apps1", interface: "org.joule.Apps1",
                                      member: "Attach", arguments: [.string("never"), .uint32(1), .string("")])
            Issue.record("an unregistered app was attached")
        } catch {
            #expect("\(error)".contains("was not registered by this connection"))
        }
        // Another user (nobody, through setpriv) may not move root's app.
        let run = try runUnder(daemon, [])
        guard await run.waitReady() else { return }
        // Issue 32: `joule app` names the apps that do run, in one sentence, and exits 2.
        let unknown = try await run.app(["background", "nosuch"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "joule: app background: no supervised app is named \"nosuch\" (running: \(run.name))\n", "\(unknown.stderr)")
        // A second app of the same name: the user's input, one line, no D-Bus names.
        let twin = try await CLIHarness.run(
            ["run", "--name", run.name, "--", "/bin/true"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(twin.status == 2, "\(twin.stderr)")
        #expect(twin.stderr.split(separator: "\n").last.map(String.init)
            == "joule run: an app named \"\(run.name)\" is already supervised (under joule daemon; pick another with --name)", "\(twin.stderr)")
        #expect(!twin.stderr.contains("org.joule"), "\(twin.stderr)")
        if NobodyBusctl.isAvailable {
            // The bus directory must let nobody (65534) reach the socket.
            chmod(daemon.bus.directory.path, 0o755)
            func asNobody(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                try await NobodyBusctl.call(address: daemon.bus.address, "org.joule.Apps1", "/org/joule/Apps1", "org.joule.Apps1", arguments)
            }
            // nobody reaches the daemon, and sees none of root's apps.
            let list = try await asNobody(["List"])
            #expect(list.status == 0 && list.output.contains("\"[]\""), "\(list.output)")
            let (status, text) = try await asNobody(["Background", "s", run.name])
            #expect(status != 0)
            // busctl words an AccessDenied reply as EACCES.
            #expect(text.contains("only that user or root may move it") || text.contains("Access denied"), "\(text)")
            #expect(try await run.entry()?["state"] as? String == "active")
        }
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
        await client.close()
    }
}
