/// Whole lines written straight to stdout or stderr, so streamed JSON lines reach a pipe at
/// once and are never interleaved half-way. A reader that went away (EPIPE) ends output
/// quietly: the writer reports it instead of dying of SIGPIPE.
public enum Console {
    public static func out(_ line: String) { _ = write(line + "\n", to: .standardOutput) }
    public static func error(_ line: String) { _ = write(line + "\n", to: .standardError) }

    public enum Stream: Sendable {
        case standardOutput, standardError
    }

    /// Writes all of `text`; false when the descriptor refused (closed pipe, bad descriptor).
    @discardableResult
    public static func write(_ text: String, to stream: Stream) -> Bool {
        var text = text
        return text.withUTF8 { write(UnsafeRawBufferPointer($0), to: stream) }
    }

    /// Writes all of `bytes`; false when the descriptor refused.
    @discardableResult
    public static func write(_ bytes: UnsafeRawBufferPointer, to stream: Stream) -> Bool {
        let fd = stream == .standardOutput ? Syscalls.standardOutput : Syscalls.standardError
        return (try? Syscalls.writeAll(fd, bytes, path: stream == .standardOutput ? "stdout" : "stderr")) != nil
    }
}
