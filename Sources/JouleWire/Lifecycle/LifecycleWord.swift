/// An enum of the lifecycle whose raw values are its JSON words (states, events, requests):
/// `name` and `description` are the word.
public protocol LifecycleWord: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension LifecycleWord {
    /// The JSON word.
    public var name: String { rawValue }

    public var description: String { rawValue }
}
