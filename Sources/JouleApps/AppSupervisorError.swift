/// Why the supervisor refused a request; each names the app.
package enum AppSupervisorError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownApp(String, known: [String])
    case nameInUse(String)
    case invalidName(String)
    case socket(String)

    package var description: String {
        switch self {
        case .unknownApp(let name, let known):
            "no supervised app is named \"\(Self.shown(name))\"" + (known.isEmpty ? " (none is running)" : " (running: \(known.joined(separator: ", ")))")
        case .nameInUse(let name): "an app named \"\(Self.shown(name))\" is already supervised"
        case .invalidName(let name):
            "\"\(Self.shown(name))\" is not an app name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"
        case .socket(let detail): "lifecycle socket: \(detail)"
        }
    }

    /// A caller's name as a message shows it: at most 80 characters (a name is 64 bytes at
    /// most, so a longer one is a caller's garbage and need not come back whole).
    package static func shown(_ name: String) -> String {
        name.count <= 80 ? name : name.prefix(80) + "…"
    }

    /// Whether `name` can name an app (it becomes part of file names).
    package static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
