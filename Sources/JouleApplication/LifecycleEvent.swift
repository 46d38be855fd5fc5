/// One notice from joule: `{"event": NAME, "state": S, "deadline": UNIX_SECONDS|null}`.
public struct LifecycleEvent: Sendable, Hashable {
    public var name: LifecycleEventName
    /// The state the app is in after this event.
    public var state: ApplicationState
    /// Unix seconds (not an interval, unlike iOS): the end of the grace period on
    /// `didEnterBackground`, the end of the budget on `backgroundTimeWillExpire`, else nil
    /// (also when joule left the key out).
    public var deadline: Double?

    public init(name: LifecycleEventName, state: ApplicationState, deadline: Double? = nil) {
        self.name = name
        self.state = state
        self.deadline = deadline
    }
}
