/// A notification's words, urgency (the specification's 0 low, 1 normal, 2 critical) and actions.
public struct NotificationContent: Sendable, Hashable {
    public var summary: String
    public var body: String
    public var urgency: UInt8
    public var actions: [NotificationAction]

    public init(summary: String, body: String, urgency: UInt8, actions: [NotificationAction] = []) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.actions = actions
    }
}
