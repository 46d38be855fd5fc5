/// A text file written a line at a time, each line at once (a recording stays readable while
/// it grows, and loses nothing to a kill): `joule location record`'s NDJSON.
public final class LineFileWriter {
    public let path: String
    private var fd: Int32
    public private(set) var lineCount = 0

    /// Creates `path`, or truncates it.
    public init(path: String) throws(HardwareError) {
        self.path = path
        fd = try Syscalls.createFile(path)
    }

    deinit { if fd >= 0 { Syscalls.close(fd) } }

    /// Appends `line` and a line end.
    public func write(line: String) throws(HardwareError) {
        guard fd >= 0 else { throw HardwareError(operation: "write", path: path, detail: "closed") }
        let bytes = Array((line + "\n").utf8)
        let result: Result<Void, HardwareError> = bytes.withUnsafeBytes { raw in
            do throws(HardwareError) {
                try Syscalls.writeAll(fd, raw, path: path)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
        lineCount += 1
    }

    public func close() {
        if fd >= 0 { Syscalls.close(fd) }
        fd = -1
    }
}
