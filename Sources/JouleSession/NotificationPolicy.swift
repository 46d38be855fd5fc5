/// Decides what to show for the daemon's state changes: pure, one open episode per kind, a
/// change within an episode replacing its notification, the condition clearing closing it.
public struct NotificationPolicy: Sendable {
    public var switches: NotificationSwitches
    /// What each open episode last showed, so a repeat of the same state shows nothing.
    private var shown: [NotificationKind: String] = [:]
    private var lowPowerMode = false

    public init(switches: NotificationSwitches = NotificationSwitches()) {
        self.switches = switches
    }

    public mutating func handle(_ event: SessionEvent) -> [NotificationCommand] {
        switch event {
        case .lowPowerMode(let on, let reason):
            lowPowerMode = on
            if on && reason == "battery-low" {
                return show(.lowPowerMode, state: "on", NotificationContent(
                    summary: "Low Power Mode turned on",
                    body: "The battery is low. Background work is reduced and animations are off until it charges.",
                    urgency: 1, actions: [.turnOffLowPowerMode]))
            }
            if !on && reason == "charged" {
                // iOS says so when it has charged, and offers the way back.
                let commands = show(.lowPowerMode, state: "off", NotificationContent(
                    summary: "Low Power Mode turned off",
                    body: "The battery has charged enough.", urgency: 0, actions: [.turnOnLowPowerMode]))
                return commands + end(.lowPowerMode)
            }
            // The user's own choice (manual, a profile, the override cleared): nothing to tell.
            return close(.lowPowerMode)
        case .warningLevel(let level, let percentage):
            let left = percentage.flatMap { $0 >= 0 ? " \(Int($0.rounded())) % left." : nil } ?? ""
            // Offered while Low Power Mode is off: the one thing a notification can do for a battery.
            let actions: [NotificationAction] = lowPowerMode ? [] : [.turnOnLowPowerMode]
            switch level {
            case "low":
                return show(.battery, state: level, NotificationContent(
                    summary: "Battery low", body: "Plug in soon.\(left)", urgency: 1, actions: actions))
            case "critical":
                return show(.battery, state: level, NotificationContent(
                    summary: "Battery critically low", body: "Plug in now.\(left)", urgency: 2, actions: actions))
            case "action":
                return show(.battery, state: level, NotificationContent(
                    summary: "Battery nearly empty", body: "The computer will act to save your work.\(left)", urgency: 2))
            default:
                return close(.battery)
            }
        case .thermalState(let state):
            switch state {
            case "serious":
                return show(.thermal, state: state, NotificationContent(
                    summary: "The computer is hot", body: "Work is slowed down until it cools.", urgency: 1))
            case "critical":
                return show(.thermal, state: state, NotificationContent(
                    summary: "The computer is critically hot",
                    body: "Work is paused. Close demanding programs and let it cool.", urgency: 2))
            default:
                return close(.thermal)
            }
        case .cpuMonitorKill(let process, let reportID):
            // A new kill replaces the last one's notification rather than stacking.
            return show(.cpuMonitor, state: reportID, NotificationContent(
                summary: "“\(process)” was stopped",
                body: "It used too much CPU in the background. Report \(reportID).", urgency: 1))
        case .sleepDrained(let start, let summary):
            // The daemon's own line says how long, how fast and what woke it.
            return show(.sleep, state: "\(start)", NotificationContent(
                summary: "The battery drained while asleep", body: summary.prefix(1).uppercased() + summary.dropFirst() + ".", urgency: 1))
        case .transferBatchFinished(let completed, let failed):
            // Each batch is news, even with the last one's counts: it replaces the last one's
            // notification rather than repeating nothing. A failure is normal urgency.
            let finished = completed + failed
            guard finished > 0 else { return [] }
            shown.removeValue(forKey: .transfers)
            return show(.transfers, state: "\(completed)/\(failed)", NotificationContent(
                summary: "\(finished) background transfer\(finished == 1 ? "" : "s") finished",
                body: failed == 0 ? "All completed." : "\(completed) completed, \(failed) failed.", urgency: failed == 0 ? 0 : 1))
        }
    }

    private mutating func show(_ kind: NotificationKind, state: String, _ content: NotificationContent) -> [NotificationCommand] {
        guard switches.isOn(kind), shown[kind] != state else { return [] }
        shown[kind] = state
        return [.show(kind, content)]
    }

    private mutating func close(_ kind: NotificationKind) -> [NotificationCommand] {
        shown.removeValue(forKey: kind) == nil ? [] : [.close(kind)]
    }

    private mutating func end(_ kind: NotificationKind) -> [NotificationCommand] {
        shown.removeValue(forKey: kind) == nil ? [] : [.end(kind)]
    }
}
