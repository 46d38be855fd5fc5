/// KWin's session-bus words: the signal that makes it re-read kdeglobals, as System Settings
/// and Breeze send it (`QDBusMessage::createSignal("/KWin", "org.kde.KWin", "reloadConfig")`).
public enum KWin {
    public static let path = "/KWin"
    public static let interface = "org.kde.KWin"
    public static let reloadConfigSignal = "reloadConfig"

    /// Broadcasts `reloadConfig`; without KWin on the bus nobody hears it, which is fine.
    public static func reloadConfig(on bus: BusConnection) async throws(BusError) {
        try await bus.emitSignal(path: path, interface: interface, member: reloadConfigSignal, arguments: [])
    }
}
