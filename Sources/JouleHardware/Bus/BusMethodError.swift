/// What a method handler throws to answer with a D-Bus error instead of a return value.
public struct BusMethodError: Error, Sendable, Hashable {
    /// A D-Bus error name, e.g. `org.freedesktop.DBus.Error.AccessDenied`.
    public var name: String
    public var message: String

    /// Messages longer than `maxMessageCharacters` are cut there: a caller's 1 MiB argument
    /// echoed into an error should not come back whole, nor fill the daemon's log.
    public init(name: String, message: String) {
        self.name = name
        self.message = message.count > Self.maxMessageCharacters ? message.prefix(Self.maxMessageCharacters) + "…" : message
    }

    public static let maxMessageCharacters = 1024

    public static func accessDenied(_ message: String) -> BusMethodError {
        BusMethodError(name: "org.freedesktop.DBus.Error.AccessDenied", message: message)
    }

    public static func invalidArgs(_ message: String) -> BusMethodError {
        BusMethodError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    public static func failed(_ message: String) -> BusMethodError {
        BusMethodError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }
}
