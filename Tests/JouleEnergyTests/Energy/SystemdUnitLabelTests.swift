import JouleEnergy
import Testing

@Suite struct SystemdUnitLabelTests {
    @Test(arguments: [
        ("/system.slice/nginx.service", "nginx.service"),
        ("/system.slice/docker.service/payload", "docker.service"),  // a delegated unit's sub-cgroup
        ("/init.scope", "init.scope"),
        ("/", "-.slice"),
        ("/process_api/dddf8becd208422d375430bc2d162a83", "-.slice"),  // made by hand, outside any unit
        ("/user.slice/user-1000.slice/session-3.scope", "session.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-4242.scope", "app-gnome-firefox.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service", "pipewire.service"),
        ("/user.slice/user-1000.slice/user@1000.service/init.scope", "init.scope"),
        ("/user.slice/user-1000.slice/user@1000.service", "user@1000.service"),
        ("/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service"),
        ("/system.slice/system-systemd\\x2dcoredump.slice/systemd-coredump@0-4242-0.service", "systemd-coredump@.service"),
        ("/system.slice/docker-4f8a2b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a.scope", "docker.scope"),
        ("/machine.slice/libpod-conmon-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope", "libpod-conmon.scope"),
        ("/system.slice/run-u17.service", "run.service"),
        ("/system.slice/run-r0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e.scope", "run.scope"),
        ("/system.slice/run-p4242-i4243.scope", "run.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-abcdefab-cdef-abcd-efab-cdefabcdefab.scope",
         "vte-spawn.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.mozilla.firefox-12345.scope",
         "app-flatpak-org.mozilla.firefox.scope"),
        ("/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.dolphin@1a2b3c4d.service", "app-org.kde.dolphin@.service"),
        ("/user.slice/user-1000.slice", "user.slice"),
        ("/system.slice/cafe-bad.service", "cafe-bad.service"),  // hex-looking words without a digit are names
    ])
    func unitsStayBounded(path: String, unit: String) {
        #expect(SystemdUnitLabel.unit(cgroupPath: path) == unit)
    }

    @Test func normalisingIsIdempotent() {
        for name in ["session-3.scope", "user@1000.service", "run-u17.service", "-.slice", "x.service", "1234.scope"] {
            let once = SystemdUnitLabel.normalized(name)
            #expect(SystemdUnitLabel.normalized(once) == once)
        }
        #expect(SystemdUnitLabel.normalized("1234.scope") == "1234.scope")  // one part always stays
    }
}
