/// The desktop's notification server, `org.freedesktop.Notifications` on the session bus
/// (the Desktop Notifications Specification): GNOME Shell, Plasma, dunst, mako, xfce4-notifyd.
public final class NotificationsClient: Sendable {
    public static let busName = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"
    public static let interface = "org.freedesktop.Notifications"

    /// The specification's urgency hint (a byte).
    public enum Urgency: UInt8, Sendable, Hashable {
        case low = 0, normal = 1, critical = 2
    }

    /// What the server tells about a notification.
    public enum Event: Sendable, Hashable {
        /// The user picked an action (its key).
        case actionInvoked(id: UInt32, action: String)
        /// Gone: 1 expired, 2 dismissed by the user, 3 closed by CloseNotification, 4 other.
        case closed(id: UInt32, reason: UInt32)
    }

    public let bus: BusConnection

    public init(bus: BusConnection) { self.bus = bus }

    /// Notify; `replacing` is the id of the notification this one replaces (0: a new one).
    /// Returns the id the server gave it. `actions` are (key, label) pairs.
    public func notify(
        appName: String, replacing: UInt32, icon: String, summary: String, body: String,
        actions: [(key: String, label: String)], urgency: Urgency, expireTimeout: Int32 = -1
    ) async throws(BusError) -> UInt32 {
        let reply = try await bus.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "Notify",
            arguments: [
                .string(appName), .uint32(replacing), .string(icon), .string(summary), .string(body),
                .array(elementSignature: "s", actions.flatMap { [BusValue.string($0.key), .string($0.label)] }),
                .variantDictionary([("urgency", .byte(urgency.rawValue))]),
                .int32(expireTimeout),
            ])
        guard let id = reply.first?.uint32Value else { throw .unexpected(operation: "Notify", detail: "reply \(reply)") }
        return id
    }

    /// CloseNotification; the server answers with NotificationClosed (reason 3).
    public func close(_ id: UInt32) async throws(BusError) {
        _ = try await bus.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "CloseNotification",
            arguments: [.uint32(id)])
    }

    /// ActionInvoked and NotificationClosed from the server, in order; the match is in place
    /// when this returns.
    public func events() async throws(BusError) -> AsyncStream<Event> {
        let rule = "type='signal',sender='\(Self.busName)',path='\(Self.path)',interface='\(Self.interface)'"
        let signals = try await bus.signals(matching: rule)
        return AsyncStream { continuation in
            let task = Task {
                for await signal in signals {
                    if let event = Self.decode(signal) { continuation.yield(event) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The event a signal carries, nil for others or malformed ones (a server's bug never traps).
    public static func decode(_ signal: BusSignalMessage) -> Event? {
        let arguments = signal.arguments.map(\.unwrapped)
        switch signal.member {
        case "ActionInvoked":
            guard arguments.count >= 2, let id = arguments[0].uint32Value, let key = arguments[1].stringValue else { return nil }
            return .actionInvoked(id: id, action: key)
        case "NotificationClosed":
            guard arguments.count >= 2, let id = arguments[0].uint32Value, let reason = arguments[1].uint32Value else { return nil }
            return .closed(id: id, reason: reason)
        default:
            return nil
        }
    }
}
