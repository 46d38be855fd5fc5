/// Why GeoClue2 gave no fix, as the user should read it: each names GeoClue and, where there
/// is one, the fix.
public enum GeoClueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nobody owns `org.freedesktop.GeoClue2` (and the bus cannot start it), or the bus itself
    /// could not be reached: `detail` says which.
    case unavailable(detail: String)
    /// GeoClue refused joule: not in its whitelist, an agent said no, or no agent for the uid.
    case accessDenied(operation: String, message: String)
    /// GeoClue left the bus (it exited or was restarted) while joule used it.
    case vanished
    /// A call GeoClue did not answer in time. GeoClue 2.6 holds `CreateClient` until an
    /// authorization agent for the caller's uid registers, which never happens for a uid with no
    /// desktop session.
    case noAnswer(operation: String, seconds: Int)
    /// Any other failure of a call, with what D-Bus said.
    case call(operation: String, detail: String)
    /// A Location object whose properties are not a position (`path`, what is wrong).
    case badLocation(path: String, detail: String)

    /// The whitelist entry `make install` writes (GeoClue ≥ 2.7 reads drop-ins; 2.6 reads only
    /// the main file, so the installer adds the same section there).
    public static let whitelistFile = "/etc/geoclue/conf.d/90-joule.conf"

    public var description: String {
        switch self {
        case .unavailable(let detail):
            "GeoClue (org.freedesktop.GeoClue2) is not on the system bus: \(detail)"
        case .accessDenied(let operation, let message):
            "GeoClue refused joule (\(operation): \(message)); GeoClue lets a system service in through its whitelist: "
                + "run `make install` (it writes \(Self.whitelistFile) and the [joule] section of /etc/geoclue/geoclue.conf: "
                + "allowed=true, system=true, users=) and restart geoclue; a desktop's location switch that is off refuses every app"
        case .vanished:
            "GeoClue (org.freedesktop.GeoClue2) left the system bus; joule asks again when it returns"
        case .noAnswer(let operation, let seconds):
            "GeoClue did not answer \(operation) within \(seconds) s: GeoClue 2.6 answers a client only once an authorization agent "
                + "runs for the caller's uid (the desktop's, e.g. gnome-shell, or /usr/libexec/geoclue-2.0/demos/agent)"
        case .call(let operation, let detail): "GeoClue \(operation): \(detail)"
        case .badLocation(let path, let detail): "GeoClue location \(path): \(detail)"
        }
    }
}
