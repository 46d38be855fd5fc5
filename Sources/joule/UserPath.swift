import JouleHardware

/// Paths the user named on the command line, checked before anything runs: a wrong one is the
/// user's input (exit 2, JouleExit), named with the option and the errno, so no command starts,
/// works for a while and only then finds it cannot write its result.
enum UserPath {
    /// An existing directory (`--textfile DIR`, `--state-dir DIR`).
    static func directory(_ path: String, option: String, command: String) throws {
        switch FileSystem.kind(of: path) {
        case .directory?: return
        case nil: throw JouleExit.input("\(option) \(path): \(Self.absence(path))", command: command)
        default: throw JouleExit.input("\(option) \(path): \(Errno.notDirectory)", command: command)
        }
    }

    /// Why stat(2) cannot see `path`: ENOENT, or EACCES when a directory above it is closed.
    private static func absence(_ path: String) -> Errno { FileSystem.statFailure(path) ?? .noEntry }

    /// A file to write (`--svg FILE`): its directory exists and this user may create files in
    /// it, and it is not a directory itself.
    static func outputFile(_ path: String, option: String, command: String) throws {
        if FileSystem.kind(of: path) == .directory {
            throw JouleExit.input("\(option) \(path): \(Errno.isDirectory)", command: command)
        }
        let cut = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let parent = cut.isEmpty ? "/" : cut
        switch FileSystem.kind(of: parent) {
        case .directory?:
            if let failure = FileSystem.createFailure(inDirectory: parent) {
                throw JouleExit.input("\(option) \(path): cannot create files in \(parent): \(failure)", command: command)
            }
        case nil: throw JouleExit.input("\(option) \(path): \(Self.absence(parent))", command: command)
        default: throw JouleExit.input("\(option) \(path): \(Errno.notDirectory)", command: command)
        }
    }

    /// A file to read (`--upload FILE`): it exists and is not a directory.
    static func inputFile(_ path: String, option: String, command: String) throws {
        switch FileSystem.kind(of: path) {
        case .directory?: throw JouleExit.input("\(option) \(path): \(Errno.isDirectory)", command: command)
        case nil: throw JouleExit.input("\(option) \(path): \(Self.absence(path))", command: command)
        default: return
        }
    }
}
