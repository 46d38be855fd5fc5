/// A background task an app began and has not ended.
public struct BackgroundTask: Sendable, Hashable {
    /// Unique within the app, from 1.
    public var id: Int
    public var name: String
    /// The socket connection that began it: the task ends when that connection closes.
    public var connection: Int
    /// When it began (Unix seconds).
    public var began: Double

    public init(id: Int, name: String, connection: Int, began: Double) {
        self.id = id
        self.name = name
        self.connection = connection
        self.began = began
    }
}
