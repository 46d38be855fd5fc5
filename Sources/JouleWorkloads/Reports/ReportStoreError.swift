import JouleHardware

/// Failures reading or writing a reports directory.
public enum ReportStoreError: Error, Sendable, CustomStringConvertible {
    case io(HardwareError)
    case notFound(id: String, directory: String)
    case ambiguous(id: String, matches: [String])

    public var description: String {
        switch self {
        case .io(let error): error.description
        case .notFound(let id, let directory): "no report \(id) in \(directory)"
        case .ambiguous(let id, let matches): "\(id) matches several reports: \(matches.joined(separator: ", "))"
        }
    }
}
