import Foundation
import JouleWire
import JouleHardware
import JouleSession
import JouleTesting
import Testing

/// Lines the engine logged, for assertions.
final class LogLines: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: @Sendable (String) -> Void { { [lines] line in lines.withLock { $0.append(line) } } }
}

/// GNOME's animations through a real dconf-service and gsettings on a private session bus,
/// with `gsettings get` as the judge: on, off, a crash, the user's own change, missing keys.
@Suite(.serialized, .enabled("needs dbus-daemon, dconf-service, gsettings and gsettings-desktop-schemas: run scripts/install-deps.sh") { await DConfRig.missing() == nil })
struct LowPowerSessionGSettingsTests {
    static let schema = "org.gnome.desktop.interface"

    func engine(_ rig: DConfRig, extra: [LowPowerSessionItem] = [], log: LogLines) -> LowPowerSession {
        LowPowerSession(
            items: [.animations(.animations(environment: rig.environment))] + extra,
            journal: SessionJournal(path: rig.stateDirectory + "/" + SessionJournal.fileName), log: log.sink)
    }

    @Test func animationsGoOffWithLowPowerModeAndComeBackExactly() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let log = LogLines()
        let session = engine(rig, log: log)
        await session.recover()
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "true")
        await session.set(lowPowerMode: true)
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "false")
        // Journalled before the write: the default was unset in dconf.
        let journal = try SessionJournal(path: rig.stateDirectory + "/" + SessionJournal.fileName).load()
        #expect(journal == [.init(setting: "gsettings \(Self.schema) enable-animations", original: nil, written: "false")])
        await session.set(lowPowerMode: false)
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "true")
        // Reset, not pinned: dconf holds nothing for the key again.
        let stored = try await Program.run("/usr/bin/dconf", ["read", "/org/gnome/desktop/interface/enable-animations"], environment: rig.environment)
        #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.stateDirectory + "/" + SessionJournal.fileName))
        #expect(log.all.isEmpty, "\(log.all)")
    }

    @Test func aCrashedRunIsRestoredByTheNextStart() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let log = LogLines()
        _ = try await rig.gsettings(["set", Self.schema, "cursor-size", "32"])
        let cursor = LowPowerSessionItem(setting: GSettingsValue(schema: Self.schema, key: "cursor-size", environment: rig.environment)) { _ in "48" }
        do {
            let first = engine(rig, extra: [cursor], log: log)
            await first.set(lowPowerMode: true)
            #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "false")
            #expect(try await rig.gsettings(["get", Self.schema, "cursor-size"]) == "48")
            // Dropped without stop(): what a crash leaves.
        }
        let second = engine(rig, extra: [cursor], log: log)
        await second.recover()
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "true")
        #expect(try await rig.gsettings(["get", Self.schema, "cursor-size"]) == "32")
        #expect(await second.held.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: rig.stateDirectory + "/" + SessionJournal.fileName))
    }

    @Test func aValueTheUserChangedMeanwhileIsLeftAlone() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let log = LogLines()
        let cursor = LowPowerSessionItem(setting: GSettingsValue(schema: Self.schema, key: "cursor-size", environment: rig.environment)) { _ in "48" }
        let session = engine(rig, extra: [cursor], log: log)
        await session.set(lowPowerMode: true)
        #expect(try await rig.gsettings(["get", Self.schema, "cursor-size"]) == "48")
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "false")
        _ = try await rig.gsettings(["set", Self.schema, "cursor-size", "64"])
        _ = try await rig.gsettings(["set", Self.schema, "enable-animations", "true"])
        await session.stop()
        #expect(try await rig.gsettings(["get", Self.schema, "cursor-size"]) == "64")
        #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "true")
        // The user's own true stays theirs: had joule restored the original, dconf would hold
        // nothing for the key (it was at its default).
        let stored = try await Program.run("/usr/bin/dconf", ["read", "/org/gnome/desktop/interface/enable-animations"], environment: rig.environment)
        #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "true")
        #expect(log.all == [
            "session: gsettings \(Self.schema) cursor-size: changed to 64 since joule wrote 48; left alone (foreign)",
            "session: gsettings \(Self.schema) enable-animations: changed to true since joule wrote false; left alone (foreign)",
        ])
        #expect(!FileManager.default.fileExists(atPath: rig.stateDirectory + "/" + SessionJournal.fileName))
    }

    @Test func aMissingKeyOrSchemaIsOneClearLineAndTheRestStillWorks() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let log = LogLines()
        let missingKey = LowPowerSessionItem.animations(GSettingsValue(schema: Self.schema, key: "no-such-key", environment: rig.environment))
        let missingSchema = LowPowerSessionItem.animations(GSettingsValue(schema: "org.joule.NoSuchSchema", key: "enable-animations", environment: rig.environment))
        let session = engine(rig, extra: [missingKey, missingSchema], log: log)
        for _ in 0..<2 {
            await session.set(lowPowerMode: true)
            #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "false")
            await session.set(lowPowerMode: false)
            #expect(try await rig.gsettings(["get", Self.schema, "enable-animations"]) == "true")
        }
        #expect(log.all.count == 2, "\(log.all)")
        #expect(log.all.first?.hasPrefix("session: gsettings \(Self.schema) no-such-key does not exist here, left alone: gsettings get exited with status 1: No such key") == true, "\(log.all)")
        #expect(log.all.last?.hasPrefix("session: gsettings org.joule.NoSuchSchema enable-animations does not exist here, left alone: gsettings get exited with status 1: No such schema") == true, "\(log.all)")
    }
}

/// KDE's kdeglobals: one line changed, every other byte kept; KWin told through reloadConfig.
@Suite(.serialized, .enabled("needs dbus-daemon") { PrivateBusDaemon.executable != nil })
struct LowPowerSessionKDETests {
    static let original = """
        [General]
        ColorScheme=BreezeDark
        # a comment = kept

        [KDE]
        LookAndFeelPackage=org.kde.breeze.desktop
        SingleClick=false

        [Icons]
        Theme=breeze

        """

    @Test(arguments: [nil, "0.5"] as [String?])
    func animationDurationFactorIsZeroUntilLowPowerModeEnds(existing: String?) async throws {
        try await PrivateBusDaemon.with { daemon in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-kde-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("kdeglobals").path
            let before = existing.map { Self.original.replacingOccurrences(of: "SingleClick=false\n", with: "SingleClick=false\nAnimationDurationFactor=\($0)\n") } ?? Self.original
            try before.write(toFile: file, atomically: false, encoding: .utf8)
            #expect(KDEGlobalsValue.isPresent(configHome: directory.path, currentDesktop: nil))
            #expect(KDEGlobalsValue.isPresent(configHome: "/nonexistent", currentDesktop: "ubuntu:KDE"))
            #expect(!KDEGlobalsValue.isPresent(configHome: "/nonexistent", currentDesktop: "ubuntu:GNOME"))

            let bus = try await BusConnection.open(address: daemon.address)
            let listener = try await BusConnection.open(address: daemon.address)
            let reloads = try await listener.signals(matching: "type='signal',path='/KWin',interface='org.kde.KWin',member='reloadConfig'")
            var heard = reloads.makeAsyncIterator()
            let log = LogLines()
            let session = LowPowerSession(
                items: [.animations(KDEGlobalsValue.animations(configHome: directory.path, bus: bus))],
                journal: SessionJournal(path: directory.appendingPathComponent("journal.json").path), log: log.sink)
            await session.set(lowPowerMode: true)
            let during = try String(contentsOfFile: file, encoding: .utf8)
            #expect(during == Self.original.replacingOccurrences(of: "SingleClick=false\n", with: "SingleClick=false\nAnimationDurationFactor=0\n"))
            #expect(await heard.next()?.member == "reloadConfig")
            await session.set(lowPowerMode: false)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
            #expect(await heard.next()?.member == "reloadConfig")
            #expect(log.all.isEmpty, "\(log.all)")
            await bus.close()
            await listener.close()
        }
    }
}

/// The backlight capped through logind's Session.SetBrightness (a dbusmock session object
/// whose SetBrightness writes the fixture's brightness file, as the kernel would), read back
/// from a fixture /sys/class/backlight.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct LowPowerSessionBacklightTests {
    func fixture(brightness: Int) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("joule-backlight-\(UUID().uuidString)")
        for (name, type, maximum, level) in [("intel_backlight", "raw", 1000, brightness), ("acpi_video0", "firmware", 15, 15)] {
            let device = root.appendingPathComponent("sys/class/backlight/\(name)")
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
            try "\(type)\n".write(to: device.appendingPathComponent("type"), atomically: false, encoding: .utf8)
            try "\(maximum)\n".write(to: device.appendingPathComponent("max_brightness"), atomically: false, encoding: .utf8)
            try "\(level)\n".write(to: device.appendingPathComponent("brightness"), atomically: false, encoding: .utf8)
        }
        return root
    }

    func logind(_ daemon: PrivateBusDaemon, root: URL) async throws -> DBusMock {
        let mock = try await DBusMock(
            .bare(busName: "org.freedesktop.login1", path: "/org/freedesktop/login1/session/auto", interface: "org.freedesktop.login1.Session"),
            address: daemon.address)
        try await mock.addMethod(
            interface: "org.freedesktop.login1.Session", name: "SetBrightness", in: "ssu", out: "",
            code: "open('\(root.path)/sys/class/backlight/' + args[1] + '/brightness', 'w').write('%d\\n' % args[2])")
        return mock
    }

    /// Capped at 40 % of intel_backlight's 1000.
    func engine(_ value: BacklightValue, root: URL, log: LogLines) -> LowPowerSession {
        LowPowerSession(
            items: [.backlight(value, percent: 40, maximum: 1000)],
            journal: SessionJournal(path: root.appendingPathComponent("journal.json").path), log: log.sink)
    }

    @Test func theBacklightIsLoweredToTheCapAndPutBack() async throws {
        try await PrivateBusDaemon.with { daemon in
            let root = try fixture(brightness: 800)
            defer { try? FileManager.default.removeItem(at: root) }
            let mock = try await logind(daemon, root: root)
            defer { mock.stop() }
            #expect(BacklightValue.devices(root: root.path) == ["acpi_video0", "intel_backlight"])
            let bus = try await BusConnection.open(address: daemon.address)
            let value = BacklightValue(root: root.path, name: "intel_backlight", bus: bus)
            #expect(try value.maximum() == 1000)
            let log = LogLines()
            let session = engine(value, root: root, log: log)
            await session.set(lowPowerMode: true)
            #expect(try await value.read() == "400")
            await session.set(lowPowerMode: false)
            #expect(try await value.read() == "800")
            let calls = try await mock.methodCalls("SetBrightness")
            #expect(calls == [
                [.string("backlight"), .string("intel_backlight"), .uint32(400)],
                [.string("backlight"), .string("intel_backlight"), .uint32(800)],
            ])
            #expect(log.all.isEmpty, "\(log.all)")
            await bus.close()
        }
    }

    @Test func aBacklightAlreadyBelowTheCapIsNeverRaised() async throws {
        try await PrivateBusDaemon.with { daemon in
            let root = try fixture(brightness: 300)
            defer { try? FileManager.default.removeItem(at: root) }
            let mock = try await logind(daemon, root: root)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let value = BacklightValue(root: root.path, name: "intel_backlight", bus: bus)
            let log = LogLines()
            let session = engine(value, root: root, log: log)
            await session.set(lowPowerMode: true)
            await session.set(lowPowerMode: false)
            #expect(try await mock.methodCalls("SetBrightness").isEmpty)
            #expect(try await value.read() == "300")
            #expect(log.all.isEmpty, "\(log.all)")
            await bus.close()
        }
    }
}
