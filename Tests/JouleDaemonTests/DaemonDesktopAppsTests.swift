import Foundation
import JouleWire
import JouleHardware
import JouleApps
import JouleEnergy
@testable import JouleDaemon
import JouleTesting
import Testing

/// The config's `apps:` over a fixture cgroup tree shaped like a user@.service subtree, with a
/// real process in the scopes' cgroup.procs: a listed app's scope is supervised as it appears
/// (inotify, no polling), a second instance gets its own name, an unlisted app is never
/// touched, and a scope that ends or an app taken out of the config is let go.
@Suite struct DaemonDesktopAppsTests {
    static let slice = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"

    static func scope(_ root: String, _ name: String, pid: Int32) throws {
        let directory = root + slice + "/" + name
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "\(pid)\n".write(toFile: directory + "/cgroup.procs", atomically: false, encoding: .utf8)
        try "0\n".write(toFile: directory + "/cgroup.freeze", atomically: false, encoding: .utf8)
        try "populated 1\nfrozen 0\n".write(toFile: directory + "/cgroup.events", atomically: false, encoding: .utf8)
    }

    @Test func listedScopesAreSupervisedAsTheyComeAndGo() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-desktop-apps")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["60"]
        try child.run()
        defer { child.terminate() }
        let pid = child.processIdentifier
        try Self.scope(scratch.path, "app-gnome-firefox-1234.scope", pid: pid)
        try Self.scope(scratch.path, "app-gnome-org.gnome.Calculator-77.scope", pid: pid)

        let supervisor = AppSupervisor(clock: ManualClock(), ledger: nil, reports: nil, log: { _ in })
        let lines = Locked<[String]>([])
        var rule = DesktopAppRule(id: "firefox")
        rule.configuration.grace = .seconds(10)
        let desktop = DaemonDesktopApps(supervisor: supervisor, rules: [rule], cgroupRoot: scratch.path, log: { line in lines.withLock { $0.append(line) } })
        await desktop.start()
        defer { Task { await desktop.stop() } }

        let first = try #require(await supervisor.list().first)
        #expect(await supervisor.list().count == 1, "the calculator is not listed, so never touched")
        #expect(first.app == "firefox" && first.pid == pid && first.source == "scope")
        #expect(first.cgroup == "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope")
        #expect(await supervisor.owner(of: "firefox") == 1000, "the scope's user may move it")
        #expect(first.json.serialized.hasSuffix(#""source":"scope"}"#))

        // A second window's scope appears: seen through inotify, named by its instance.
        try Self.scope(scratch.path, "app-gnome-firefox-5678.scope", pid: pid)
        #expect(try await eventually { await supervisor.names == ["firefox", "firefox-5678"] })

        // The first ends.
        try FileManager.default.removeItem(atPath: scratch.path + Self.slice + "/app-gnome-firefox-1234.scope")
        #expect(try await eventually { await supervisor.names == ["firefox-5678"] })

        // Taken out of the config: let go.
        await desktop.reload([])
        #expect(await supervisor.names.isEmpty)
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("apps: firefox: the desktop app firefox in ") }, "\(lines.withLock { $0 })")
    }

    /// A scope that vanishes while it is being frozen: the app is let go, the failed thaw is
    /// said, and nothing is left holding it.
    @Test func aScopeVanishingMidFreezeIsLetGo() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-desktop-vanish")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["60"]
        try child.run()
        defer { child.terminate() }
        try Self.scope(scratch.path, "app-gnome-firefox-1234.scope", pid: child.processIdentifier)
        let lines = Locked<[String]>([])
        let supervisor = AppSupervisor(clock: SystemClock(), ledger: nil, reports: nil, log: { line in lines.withLock { $0.append(line) } })
        let desktop = DaemonDesktopApps(
            supervisor: supervisor, rules: [DesktopAppRule(id: "firefox")], cgroupRoot: scratch.path, log: { line in lines.withLock { $0.append(line) } })
        await desktop.start()
        defer { Task { await desktop.stop() } }
        #expect(await supervisor.names == ["firefox"])
        try await supervisor.request(.suspend, app: "firefox")
        let freeze = scratch.path + Self.slice + "/app-gnome-firefox-1234.scope/cgroup.freeze"
        #expect(try await eventually { (try? String(contentsOfFile: freeze, encoding: .utf8)) == "1" || (try? String(contentsOfFile: freeze, encoding: .utf8)) == "1\n" })
        // The kernel has not confirmed the freeze (cgroup.events still says frozen 0) when the scope goes.
        try FileManager.default.removeItem(atPath: scratch.path + Self.slice + "/app-gnome-firefox-1234.scope")
        #expect(try await eventually { await supervisor.names.isEmpty })
        #expect(lines.withLock { $0 }.contains { $0.contains("firefox") && $0.contains("ended") }, "\(lines.withLock { $0 })")
    }
}
