import JouleWire

/// One transition as the machine announces it: the event, the state it leaves the app in,
/// the deadline it comes with (Unix seconds: the suspension after `didEnterBackground`, the end
/// of the budget after `backgroundTimeWillExpire`; nil otherwise), and a detail in words.
package struct AppLifecycleNotice: Sendable, Hashable {
    package var event: AppLifecycleEvent
    package var state: AppLifecycleState
    package var deadline: Double?
    package var detail: String?
    /// When the machine produced it (Unix seconds).
    package var time: Double

    package init(event: AppLifecycleEvent, state: AppLifecycleState, deadline: Double? = nil, detail: String? = nil, time: Double) {
        self.event = event
        self.state = state
        self.deadline = deadline
        self.detail = detail
        self.time = time
    }

    /// The message the app hears on its socket, nil for events it does not hear.
    package var message: LifecycleMessage? {
        event.isSentToApp ? .event(event, state: state, deadline: deadline) : nil
    }
}
