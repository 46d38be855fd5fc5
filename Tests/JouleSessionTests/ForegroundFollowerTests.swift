import Foundation
import JouleWire
import JouleHardware
@testable import JouleSession
import JouleTesting
import Testing

/// The foreground follows the focus: window pids traced to the supervised apps by cgroup or
/// process tree, and only changes sent to a dbusmock org.joule.Apps1 on a private bus.
@Suite struct ForegroundFollowerTests {
    static let apps = [
        ForegroundAssignment.App(name: "firefox", pid: 100, cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1.scope"),
        ForegroundAssignment.App(name: "inner", pid: 150, cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1.scope/joule-app-inner"),
        ForegroundAssignment.App(name: "editor", pid: 200, cgroup: nil),
    ]
    static let cgroups: [Int32: String] = [
        101: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1.scope",
        151: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1.scope/joule-app-inner",
        201: "/user.slice/user-1000.slice/session-2.scope", 300: "/user.slice/user-1000.slice/session-2.scope",
    ]
    static let parents: [Int32: Int32] = [201: 200, 200: 1, 300: 1]

    @Test func windowsAreTracedByCgroupThenByProcessTree() {
        let states = ForegroundAssignment.states(
            windows: [101: .background, 151: .inactive, 201: .active, 300: .active], apps: Self.apps,
            cgroup: { Self.cgroups[$0] }, parent: { Self.parents[$0] })
        // 151 is in inner's cgroup (the deepest holder), 201 a child of editor, 300 of no app.
        #expect(states == ["firefox": .background, "inner": .inactive, "editor": .active])
        // A pid with two windows takes the best; a loop in the parents ends.
        let best = ForegroundAssignment.states(
            windows: [101: .inactive, 100: .active], apps: Self.apps, cgroup: { Self.cgroups[$0] ?? Self.cgroups[101] }, parent: { $0 })
        #expect(best == ["firefox": .active])
    }

    @Test(.enabled("needs dbus-daemon and python3-dbusmock") { await dbusMockUsable() })
    func onlyChangesAreSentToApps1() async throws {
        try await PrivateBusDaemon.with { daemon in
            let apps = try await DBusMock(.bare(busName: AppsBus.busName, path: AppsBus.objectPath, interface: AppsBus.interfaceName), address: daemon.address)
            defer { apps.stop() }
            // One app: this test process, under the process-tree fallback; its windows are ours.
            let me = getpid()
            let list = #"[{"app":"editor","pid":\#(me),"state":"active","cgroup":null}]"#
            try await apps.addMethod(interface: AppsBus.interfaceName, name: "List", in: "", out: "s", code: "ret = '\(list)'")
            for member in ["Foreground", "Inactive", "Background"] {
                try await apps.addMethod(interface: AppsBus.interfaceName, name: member, in: "s", out: "", code: "")
            }
            let bus = try await BusConnection.open(address: daemon.address)
            let follower = ForegroundFollower(bus: bus, log: { _ in })
            func window(focused: Bool, hidden: Bool = false) -> DesktopSnapshot {
                DesktopSnapshot(windows: [DesktopWindow(id: 1, pid: me, isFocused: focused, isHidden: hidden, isOnCurrentWorkspace: true),
                                          DesktopWindow(id: 2, pid: 1, isFocused: !focused, isHidden: false, isOnCurrentWorkspace: true)])
            }
            #expect(await follower.apply(window(focused: true)).map { "\($0.0) \($0.1)" } == ["editor foreground"])
            #expect(await follower.apply(window(focused: true)).isEmpty, "no change, no call")
            #expect(await follower.apply(window(focused: false)).map { "\($0.0) \($0.1)" } == ["editor inactive"])
            #expect(await follower.apply(window(focused: false, hidden: true)).map { "\($0.0) \($0.1)" } == ["editor background"])
            // Its window closed: already in the background, nothing more.
            #expect(await follower.apply(DesktopSnapshot(windows: [])).isEmpty)
            #expect(try await apps.methodCalls("Foreground") == [[.string("editor")]])
            #expect(try await apps.methodCalls("Inactive") == [[.string("editor")]])
            #expect(try await apps.methodCalls("Background") == [[.string("editor")]])
            // Handed back (the focus source gone): the app it left in the background comes to
            // the foreground, once; an app it left active is not called.
            #expect(await follower.release().map { "\($0.0) \($0.1)" } == ["editor foreground"])
            #expect(await follower.release().isEmpty)
            #expect(try await apps.methodCalls("Foreground") == [[.string("editor")], [.string("editor")]])
            #expect(await follower.apply(window(focused: true)).map { "\($0.0) \($0.1)" } == ["editor foreground"])
            #expect(await follower.release().isEmpty)
            await bus.close()
        }
    }
}
