import Foundation
import JouleHardware
@testable import JouleApps
import JouleTesting
import Testing

/// Desktop apps' unit names, as GNOME, KDE, flatpak and other launchers make them, and the
/// scanner over a fixture cgroup tree shaped like a real user@.service subtree.
@Suite struct DesktopScopeTests {
    @Test(arguments: [
        ("app-gnome-firefox-1234.scope", "gnome", "firefox", "1234"),
        ("app-gnome-org.mozilla.firefox-2817.scope", "gnome", "org.mozilla.firefox", "2817"),
        ("app-flatpak-org.mozilla.firefox-12345.scope", "flatpak", "org.mozilla.firefox", "12345"),
        ("app-org.kde.konsole-6f1a2b.scope", nil, "org.kde.konsole", "6f1a2b"),
        ("app-KDE-org.kde.okular-12345.service", "KDE", "org.kde.okular", "12345"),
        ("app-gnome-org.gnome.Nautilus@9.service", "gnome", "org.gnome.Nautilus", "9"),
        ("app-gnome-firefox\\x2desr-77.scope", "gnome", "firefox-esr", "77"),
        ("app-niri-fuzzel-4411.scope", "niri", "fuzzel", "4411"),
    ] as [(String, String?, String, String)])
    func unitNamesDecode(_ name: String, _ launcher: String?, _ id: String, _ instance: String) throws {
        let unit = try #require(DesktopAppUnit(unit: name))
        #expect(unit.launcher == launcher && unit.appID == id && unit.instance == instance, "\(unit)")
    }

    @Test(arguments: [
        "session.slice", "app.slice", "app-gnome-firefox.slice", "dbus.service", "app--1.scope", "app-x-.scope",
        "app-gnome-bad\\x2-1.scope", "app-gnome-bad\\xff-1.scope", "app-1234.scope", "application-x-1.scope",
    ])
    func otherNamesAreNotApps(_ name: String) {
        #expect(DesktopAppUnit(unit: name) == nil, "\(name)")
    }

    /// A cgroup tree with two users: GNOME puts scopes straight into app.slice and nests some
    /// in a slice of their own; a flatpak scope; session.slice holds no apps.
    static func tree() throws -> ScratchDirectory {
        let scratch = try ScratchDirectory(prefix: "joule-desktop-scopes")
        let base = scratch.path + "/sys/fs/cgroup/user.slice"
        let directories = [
            "user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope",
            "user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-ab.scope",
            "user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-99.slice/app-gnome-org.gnome.Terminal-99.scope",
            "user-1000.slice/user@1000.service/app.slice/dbus.service",
            "user-1000.slice/user@1000.service/session.slice/app-gnome-evil-1.scope",
            "user-1001.slice/user@1001.service/app.slice/app-flatpak-org.mozilla.firefox-555.scope",
            "user-1002.slice/session-3.scope",
        ]
        for directory in directories {
            try FileManager.default.createDirectory(atPath: base + "/" + directory, withIntermediateDirectories: true)
        }
        return scratch
    }

    @Test func theScannerFindsEachUsersAppsAndNothingElse() throws {
        let scratch = try Self.tree()
        let scanner = DesktopScopeScanner(freezer: CgroupFreezer(root: scratch.path))
        #expect(scanner.appSlices().map(\.uid) == [1000, 1001])
        let found = scanner.scan()
        #expect(found.map(\.unit.appID) == ["firefox", "org.gnome.Terminal", "org.mozilla.firefox"], "\(found)")
        #expect(found.map(\.uid) == [1000, 1000, 1001])
        #expect(found[0].cgroup == "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope")
        #expect(found[2].unit.launcher == "flatpak")
    }
}
