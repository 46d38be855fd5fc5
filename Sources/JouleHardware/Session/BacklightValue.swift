/// A backlight's brightness: read from `ROOT/sys/class/backlight/NAME/brightness`, written
/// through logind's `Session.SetBrightness("backlight", NAME, value)` on the caller's own
/// session, which needs no root (logind checks the caller's seat).
public struct BacklightValue: SessionSetting {
    public let root: String
    public let name: String
    public let bus: BusConnection
    /// The caller's own session (`auto`), as `brightnessctl` and gnome-settings-daemon use it.
    public var sessionPath = "/org/freedesktop/login1/session/auto"

    public init(root: String, name: String, bus: BusConnection) {
        self.root = root
        self.name = name
        self.bus = bus
    }

    public var id: String { "backlight \(name)" }

    private var directory: String { Self.classDirectory(root) + "/" + name }

    static func classDirectory(_ root: String) -> String {
        (root == "/" ? "" : root) + "/sys/class/backlight"
    }

    /// The backlights under `root`, the one a desktop adjusts first: firmware (ACPI) before
    /// platform before raw, as gnome-settings-daemon and logind's own backlight tool prefer.
    public static func devices(root: String) -> [String] {
        let names = (try? FileSystem.listDirectory(classDirectory(root))) ?? []
        let rank = ["firmware": 0, "platform": 1, "raw": 2]
        func type(_ name: String) -> Int {
            let text = (try? FileSystem.readText(classDirectory(root) + "/" + name + "/type"))?.sessionTrimmed ?? ""
            return rank[text] ?? 3
        }
        return names.sorted { (type($0), $0) < (type($1), $1) }
    }

    /// `max_brightness`.
    public func maximum() throws(SessionSettingError) -> Int {
        try number("max_brightness")
    }

    public func read() async throws(SessionSettingError) -> String? {
        String(try number("brightness"))
    }

    public func write(_ value: String?) async throws(SessionSettingError) {
        guard let value, let level = UInt32(value) else {
            throw SessionSettingError(.failed, setting: id, detail: "not a brightness: \(value ?? "none")")
        }
        do {
            _ = try await bus.call(
                destination: "org.freedesktop.login1", path: sessionPath, interface: "org.freedesktop.login1.Session",
                member: "SetBrightness", arguments: [.string("backlight"), .string(name), .uint32(level)])
        } catch {
            throw SessionSettingError(.failed, setting: id, detail: "logind SetBrightness: \(error)")
        }
    }

    private func number(_ file: String) throws(SessionSettingError) -> Int {
        let path = directory + "/" + file
        let text: String
        do {
            text = try FileSystem.readText(path)
        } catch {
            throw SessionSettingError(error.errno == .noEntry ? .missing : .failed, setting: id, detail: "cannot read \(path): \(error)")
        }
        guard let value = Int(text.sessionTrimmed), value >= 0 else {
            throw SessionSettingError(.failed, setting: id, detail: "\(path): not a number: \(text.sessionTrimmed)")
        }
        return value
    }
}
