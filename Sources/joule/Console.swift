#if canImport(Glibc)
import Glibc
#endif

/// Output for the CLI: whole lines written straight to the file descriptor, so streamed
/// JSON lines reach a pipe immediately and are never interleaved half-way.
enum Console {
    static func out(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }
    static func error(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    private static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return  // EPIPE or a closed descriptor: the reader has gone, nothing to do.
                }
            }
        }
    }
}
