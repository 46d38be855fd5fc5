import JouleHardware

/// Carries out the notification policy against the desktop's server: one server id per open
/// episode, passed as `replaces_id` so an update replaces rather than stacks; and answers the
/// actions people pick by asking the daemon to change Low Power Mode.
public actor SessionNotifier {
    private let client: NotificationsClient
    private var policy: NotificationPolicy
    private let setLowPowerMode: @Sendable (String) async throws -> Void
    private let log: @Sendable (String) -> Void
    /// The server's id for each open episode.
    private var ids: [NotificationKind: UInt32] = [:]
    /// Notifications whose episode ended while they stay up (`end`): their actions still count.
    private var ended: [UInt32] = []
    public static let appName = "Joule"

    /// `setLowPowerMode` calls org.joule.Energy1's `SetLowPowerMode` with `on` or `off`.
    public init(
        client: NotificationsClient, policy: NotificationPolicy,
        setLowPowerMode: @escaping @Sendable (String) async throws -> Void, log: @escaping @Sendable (String) -> Void
    ) {
        self.client = client
        self.policy = policy
        self.setLowPowerMode = setLowPowerMode
        self.log = log
    }

    /// The server's id of a kind's open notification, if any.
    public func id(of kind: NotificationKind) -> UInt32? { ids[kind] }

    public func handle(_ event: SessionEvent) async {
        for command in policy.handle(event) {
            switch command {
            case .show(let kind, let content):
                do {
                    ids[kind] = try await client.notify(
                        appName: Self.appName, replacing: ids[kind] ?? 0, icon: icon(kind, content.urgency),
                        summary: content.summary, body: content.body,
                        actions: content.actions.map { ($0.rawValue, $0.label) },
                        urgency: NotificationsClient.Urgency(rawValue: content.urgency) ?? .normal)
                } catch {
                    log("session: cannot show the \(kind.rawValue) notification: \(error)")
                }
            case .close(let kind):
                guard let id = ids.removeValue(forKey: kind) else { continue }
                do {
                    try await client.close(id)
                } catch {
                    log("session: cannot close the \(kind.rawValue) notification \(id): \(error)")
                }
            case .end(let kind):
                if let id = ids.removeValue(forKey: kind) { ended = Array((ended + [id]).suffix(8)) }
            }
        }
    }

    public func handle(_ event: NotificationsClient.Event) async {
        switch event {
        case .actionInvoked(let id, let key):
            // Only our own notifications' actions: the signal is broadcast to every client.
            guard ids.values.contains(id) || ended.contains(id), let action = NotificationAction(rawValue: key) else { return }
            do {
                try await setLowPowerMode(action.lowPowerMode)
            } catch {
                log("session: SetLowPowerMode(\(action.lowPowerMode)) for the notification's action failed: \(error)")
            }
        case .closed(let id, _):
            // Dismissed or expired: the episode's next change is a new notification.
            for (kind, open) in ids where open == id { ids.removeValue(forKey: kind) }
            ended.removeAll { $0 == id }
        }
    }


    /// Follows the server's signals until the stream ends.
    public func follow(_ events: AsyncStream<NotificationsClient.Event>) async {
        for await event in events { await handle(event) }
    }

    private func icon(_ kind: NotificationKind, _ urgency: UInt8) -> String {
        switch kind {
        case .lowPowerMode: "battery-profile-powersave-symbolic"
        case .battery: urgency >= 2 ? "battery-level-0-symbolic" : "battery-level-10-symbolic"
        case .thermal: "dialog-warning-symbolic"
        case .cpuMonitor: "utilities-system-monitor-symbolic"
        case .transfers: "folder-download-symbolic"
        case .sleep: "weather-clear-night-symbolic"
        }
    }
}
