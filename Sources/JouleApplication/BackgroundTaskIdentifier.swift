/// A background task joule granted, as UIBackgroundTaskIdentifier. Ids are joule's (from 1,
/// per app); `.invalid` (0) is what a refusal gives, and ending it does nothing.
public struct BackgroundTaskIdentifier: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Joule had no background time left (`{"taskId": null, "remaining": 0}`).
    public static let invalid = BackgroundTaskIdentifier(rawValue: 0)

    public var description: String { self == .invalid ? "invalid" : String(rawValue) }
}
