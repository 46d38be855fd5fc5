/// A selector pattern that is not a valid regular expression.
public struct ProcessMatcherError: Error, Sendable {
    public var pattern: String
    public var reason: String
}
