/// A desktop app's systemd unit, by the XDG convention the desktops follow
/// (systemd's docs/DESKTOP_ENVIRONMENTS.md): `app[-<launcher>]-<ApplicationID>-<RANDOM>.scope`,
/// or `.service` with `-<RANDOM>` or `@<RANDOM>`; the application ID is systemd-escaped
/// (`-` as `\x2d`). Examples: `app-gnome-firefox-1234.scope`,
/// `app-flatpak-org.mozilla.firefox-5678.scope`, `app-org.kde.konsole-ab12.scope`,
/// `app-gnome-org.gnome.Nautilus@9.service`. Pure.
package struct DesktopAppUnit: Sendable, Hashable {
    /// The unit (and cgroup directory) name.
    package var unit: String
    /// `gnome`, `flatpak`, `KDE`…; nil when the launcher left it out.
    package var launcher: String?
    /// The application ID, unescaped: `org.mozilla.firefox`, `firefox`.
    package var appID: String
    /// What tells two instances apart (a pid or a random string).
    package var instance: String

    package init?(unit: String) {
        let body: Substring
        var separator: Character = "-"
        if unit.hasSuffix(".scope") {
            body = unit.dropLast(6)
        } else if unit.hasSuffix(".service") {
            body = unit.dropLast(8)
            if body.contains("@") { separator = "@" }
        } else {
            return nil
        }
        guard body.hasPrefix("app-"), unit.utf8.count <= 255 else { return nil }
        let rest = body.dropFirst(4)
        guard let cut = rest.lastIndex(of: separator) else { return nil }
        let instance = rest[rest.index(after: cut)...]
        let parts = rest[..<cut].split(separator: "-", omittingEmptySubsequences: false)
        guard !instance.isEmpty, !instance.contains("-"), !parts.isEmpty, !parts.contains(where: \.isEmpty) else { return nil }
        // One part: the ID alone; more: the launcher, then the ID (a launcher that did not
        // escape the ID's dashes leaves them as separators, so the rest is joined back).
        let id = parts.count == 1 ? parts[0] : parts.dropFirst().joined(separator: "-")[...]
        guard let appID = Self.unescape(id), !appID.isEmpty else { return nil }
        self.unit = unit
        launcher = parts.count == 1 ? nil : String(parts[0])
        self.appID = appID
        self.instance = String(instance)
    }

    /// systemd's `\xNN` escapes undone; nil for a malformed escape or a byte that is not UTF-8.
    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.first {
            utf8 = utf8.dropFirst()
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            let escape = Array(utf8.prefix(3))
            guard escape.count == 3, escape[0] == UInt8(ascii: "x"),
                  let value = UInt8(String(decoding: escape[1...], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(3)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
