#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: working directory and terminals

extension Syscalls {
    /// getcwd(3); nil when the directory was removed or the path is too long.
    static func workingDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// isatty(3) on `fd`.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// ioctl(2) TIOCGWINSZ on `fd`: rows and columns; nil for a pipe or a terminal that says 0.
    static func terminalSize(_ fd: Int32) -> (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}

extension CurrentProcess {
    /// The current directory, against which a user's relative paths are meant; nil when it
    /// is gone.
    public static var workingDirectory: String? { Syscalls.workingDirectory() }
}

extension Console {
    /// Whether `stream` is a terminal, where progress bars are drawn instead of byte counts.
    public static func isTerminal(_ stream: Stream) -> Bool {
        Syscalls.isTerminal(stream == .standardOutput ? Syscalls.standardOutput : Syscalls.standardError)
    }

    /// The terminal's size in rows and columns, for views that fill the screen (`joule top`);
    /// nil when `stream` is not a terminal.
    public static func terminalSize(_ stream: Stream) -> (rows: Int, columns: Int)? {
        Syscalls.terminalSize(stream == .standardOutput ? Syscalls.standardOutput : Syscalls.standardError)
    }
}
