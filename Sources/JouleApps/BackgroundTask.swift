/// A background task an app began and has not ended.
package struct BackgroundTask: Sendable, Hashable {
    /// Unique within the app, from 1.
    package var id: Int
    package var name: String
    /// The socket connection that began it: the task ends when that connection closes.
    package var connection: Int
    /// When it began (Unix seconds).
    package var began: Double

    package init(id: Int, name: String, connection: Int, began: Double) {
        self.id = id
        self.name = name
        self.connection = connection
        self.began = began
    }
}
