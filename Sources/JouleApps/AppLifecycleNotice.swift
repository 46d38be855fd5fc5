import JouleWire

/// One transition as the machine announces it: the event, the state it leaves the app in,
/// the deadline it comes with (Unix seconds: the suspension after `didEnterBackground`, the end
/// of the budget after `backgroundTimeWillExpire`; nil otherwise), and a detail in words.
public struct AppLifecycleNotice: Sendable, Hashable {
    public var event: AppLifecycleEvent
    public var state: AppLifecycleState
    public var deadline: Double?
    public var detail: String?
    /// When the machine produced it (Unix seconds).
    public var time: Double

    public init(event: AppLifecycleEvent, state: AppLifecycleState, deadline: Double? = nil, detail: String? = nil, time: Double) {
        self.event = event
        self.state = state
        self.deadline = deadline
        self.detail = detail
        self.time = time
    }

    /// The message the app hears on its socket, nil for events it does not hear.
    public var message: LifecycleMessage? {
        event.isSentToApp ? .event(event, state: state, deadline: deadline) : nil
    }
}
