import JouleHardware

/// Buffered standard output for high-volume JSON lines: lines collect in a `JSONLineBuffer`
/// and go out in large writes. Live streams call `flush()` after each batch of lines, so
/// a reader of the pipe only ever sees complete lines.
final class StandardOutput {
    let buffer = JSONLineBuffer(capacity: 1 << 17)
    private let threshold = 1 << 16
    /// Set once a write fails (EPIPE: the reader went away); output stops quietly.
    private(set) var closed = false

    /// Flushes when the buffer is past the threshold; call after each complete line.
    func lineWritten() {
        if buffer.count >= threshold { flush() }
    }

    func flush() {
        defer { buffer.removeAll() }
        guard !closed else { return }
        if !Console.write(UnsafeRawBufferPointer(buffer.bytes), to: .standardOutput) { closed = true }
    }
}
