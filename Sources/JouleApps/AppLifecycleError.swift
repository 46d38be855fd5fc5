/// Why the supervisor refused what an app asked on its socket.
package enum AppLifecycleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `endBackgroundTask` named a task that is not open: never begun, already ended, or
    /// ended by joule when the budget ran out.
    case unknownTaskId(Int)
    /// `beginBackgroundTask` in the background once its time is spent, or while it is being
    /// suspended.
    case noBackgroundTimeLeft
    /// The app is terminating or gone.
    case terminated
    /// A message only joule sends (an event or a reply) came from the app.
    case notARequest

    package var description: String {
        switch self {
        case .unknownTaskId(let id): "unknown task id \(id): no open background task has it"
        case .noBackgroundTimeLeft: "no background time left: the app is being suspended"
        case .terminated: "the app is terminating"
        case .notARequest: "not a request: apps send beginBackgroundTask, endBackgroundTask or backgroundTimeRemaining"
        }
    }
}
