/// The systemd unit a process belongs to, read from its cgroup v2 path and normalised so that a
/// metric labelled by it (`joule_process_energy_joules_total{unit}`, `joule top --by unit`)
/// stays bounded however many sessions, containers and transient scopes come and go.
///
/// The unit is the innermost path component that names a unit (`.service`, `.scope`,
/// `.socket`, `.mount`, `.swap`; else the innermost `.slice`), so an app in its own scope under
/// `user@1000.service` counts as that app, not as the user manager. Processes outside every
/// unit (kernel threads in the root cgroup, cgroups made by hand) belong to `-.slice`, systemd's
/// name for the root. Then identifiers are dropped:
/// - trailing `-`-separated parts that are ids: decimal numbers, hex strings holding a digit,
///   a UUID, or systemd-run's `u<N>`, `r<hex>`, `p<pid>`, `i<N>`: `session-3.scope` →
///   `session.scope`, `app-gnome-firefox-4242.scope` → `app-gnome-firefox.scope`,
///   `docker-<64 hex>.scope` → `docker.scope`, `run-u17.service` → `run.service`;
/// - a template instance holding an id: `systemd-coredump@0-4242-0.service` →
///   `systemd-coredump@.service`, KDE's `app-org.kde.dolphin@1a2b3c4d.service` →
///   `app-org.kde.dolphin@.service`. A plain number or a name stays (`user@1000.service`,
///   `getty@tty1.service`): users and ttys are few.
public enum SystemdUnitLabel {
    /// systemd's name for the root cgroup.
    public static let root = "-.slice"

    private static let leafTypes: Set<Substring> = ["service", "scope", "socket", "mount", "swap"]

    /// The normalised unit of a cgroup v2 path such as `/system.slice/nginx.service`.
    public static func unit(cgroupPath path: String) -> String {
        let components = path.split(separator: "/")
        if let leaf = components.last(where: { type(of: $0).map(leafTypes.contains) == true }) {
            return normalized(leaf)
        }
        if let slice = components.last(where: { type(of: $0) == "slice" }) { return normalized(slice) }
        return root
    }

    /// A unit name without the identifiers that make names unbounded (see the type's rules).
    public static func normalized<S: StringProtocol>(_ name: S) -> String {
        let unit = Substring(name)
        guard unit != root, let dot = unit.lastIndex(of: "."), dot > unit.startIndex else { return String(unit) }
        let base = unit[..<dot]
        let suffix = unit[dot...]
        if let at = base.firstIndex(of: "@") {
            let instance = base[base.index(after: at)...]
            let parts = instance.split(separator: "-", omittingEmptySubsequences: false)
            let kept = instance.utf8.allSatisfy(\.isDecimalDigit) || !parts.contains(where: isIdentifier)
            return withoutTrailingIdentifiers(base[..<at]) + "@" + (kept ? String(instance) : "") + suffix
        }
        return withoutTrailingIdentifiers(base) + suffix
    }

    private static func type(of component: Substring) -> Substring? {
        guard let dot = component.lastIndex(of: ".") else { return nil }
        return component[component.index(after: dot)...]
    }

    /// Drops id-like parts from the end, keeping at least the first part.
    private static func withoutTrailingIdentifiers(_ name: Substring) -> String {
        var parts = name.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count > 5, isUUID(parts.suffix(5)) { parts.removeLast(5) }
        while parts.count > 1, let last = parts.last, isIdentifier(last) { parts.removeLast() }
        return parts.joined(separator: "-")
    }

    /// A decimal number, hex holding a digit, or systemd-run's one-letter prefix on either.
    static func isIdentifier(_ part: Substring) -> Bool {
        if isHexWithDigit(part) { return true }
        guard let first = part.first, "urpi".contains(first), part.count > 1 else { return false }
        return isHexWithDigit(part.dropFirst())
    }

    private static func isHexWithDigit(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy(\.isHexDigit) && part.utf8.contains(where: \.isDecimalDigit)
    }

    /// 8-4-4-4-12 hex digits, the shape of a UUID split at its dashes (some parts may hold no digit).
    private static func isUUID(_ parts: ArraySlice<Substring>) -> Bool {
        zip(parts, [8, 4, 4, 4, 12]).allSatisfy { part, length in part.utf8.count == length && part.utf8.allSatisfy(\.isHexDigit) }
    }
}

extension UInt8 {
    fileprivate var isDecimalDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isHexDigit: Bool { isDecimalDigit || (self >= 0x61 && self <= 0x66) || (self >= 0x41 && self <= 0x46) }
}
