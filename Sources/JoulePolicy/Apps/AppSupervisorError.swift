/// Why the supervisor refused a request; each names the app.
public enum AppSupervisorError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownApp(String, known: [String])
    case nameInUse(String)
    case invalidName(String)
    case socket(String)

    public var description: String {
        switch self {
        case .unknownApp(let name, let known):
            "no supervised app is named \"\(name)\"" + (known.isEmpty ? " (none is running)" : " (running: \(known.joined(separator: ", ")))")
        case .nameInUse(let name): "an app named \"\(name)\" is already supervised"
        case .invalidName(let name):
            "\"\(name)\" is not an app name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"
        case .socket(let detail): "lifecycle socket: \(detail)"
        }
    }

    /// Whether `name` can name an app (it becomes part of file names).
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
