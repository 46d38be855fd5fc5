import JouleHardware

/// The file behind a journal of what joule has changed (paused work, written knobs): private to
/// its owner (mode 0600 in a 0700 directory), replaced atomically so a crash leaves the old
/// record or the new one, and absent when nothing is held.
public struct JournalFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The file's text, or nil when there is none. Throws when it exists but cannot be read.
    public func read() throws(HardwareError) -> String? {
        do {
            // Root restores what a journal names: never from a file a symlink leads to.
            return try FileSystem.readText(path, followingSymlinks: false)
        } catch {
            if error.errno == .noEntry { return nil }
            throw error
        }
    }

    /// Replaces the file with `text` and a final newline, creating its directory when needed.
    public func write(_ text: String) throws(HardwareError) {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try FileSystem.makeDirectories(String(path[..<slash]), mode: 0o700)
        }
        try AtomicFile.write(text + "\n", to: path, mode: 0o600)
    }

    /// Removes the file; a missing one is not an error.
    public func remove() throws(HardwareError) { try FileSystem.removeFile(path) }
}
