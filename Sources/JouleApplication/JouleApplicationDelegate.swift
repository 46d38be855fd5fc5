/// The UIApplicationDelegate subset joule drives. Called on the connection's reader thread, in
/// the order joule sent the events, after `applicationState` has changed: return promptly and
/// start longer work in a `Task` (the reader cannot read replies while a callback blocks, so a
/// callback must never wait for `beginBackgroundTask` or `backgroundTimeRemaining`).
public protocol JouleApplicationDelegate: AnyObject, Sendable {
    func applicationWillResignActive(_ application: JouleApplication)
    func applicationDidEnterBackground(_ application: JouleApplication)
    func applicationWillEnterForeground(_ application: JouleApplication)
    func applicationDidBecomeActive(_ application: JouleApplication)
    /// After every open task's expiration handler: the last chance before the app is suspended.
    func applicationBackgroundTimeWillExpire(_ application: JouleApplication)
}

extension JouleApplicationDelegate {
    public func applicationWillResignActive(_ application: JouleApplication) {}
    public func applicationDidEnterBackground(_ application: JouleApplication) {}
    public func applicationWillEnterForeground(_ application: JouleApplication) {}
    public func applicationDidBecomeActive(_ application: JouleApplication) {}
    public func applicationBackgroundTimeWillExpire(_ application: JouleApplication) {}
}
