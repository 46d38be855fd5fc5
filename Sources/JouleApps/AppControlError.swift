/// Why `joule app` could not move or reach an app.
package enum AppControlError: Error, Sendable, CustomStringConvertible {
    case supervisor(AppSupervisorError)
    case refused(String)
    case noAnswer(String)
    case io(String)

    package var description: String {
        switch self {
        case .supervisor(let error): error.description
        case .refused(let text): text
        case .noAnswer(let path): "\(path): no answer within 5 s"
        case .io(let text): text
        }
    }
}
