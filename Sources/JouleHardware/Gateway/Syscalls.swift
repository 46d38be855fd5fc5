#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims
import SystemPackage
import JouleWire

/// The one place where the hardware layer calls the C library for files and processes, with
/// `BluetoothGateway` and `UdevGateway` for their libraries. Descriptor I/O goes through
/// apple/swift-system (its EINTR handling), except open(2) and whole-file reads, which call libc
/// and retry EINTR themselves because every poll runs them; each wrapper turns errno into a
/// `HardwareError` naming the call and path. Internal: policy and the CLI use the domain types built on it.
enum Syscalls {
    // MARK: files

    /// Runs a swift-system call, turning its errno into a `HardwareError` naming the call and
    /// path. swift-system retries EINTR itself (`retryOnInterrupt`).
    private static func system<T>(_ operation: String, _ path: String, _ body: () throws -> T) throws(HardwareError) -> T {
        do {
            return try body()
        } catch let error as SystemPackage.Errno {
            throw HardwareError(operation: operation, path: path, errno: Errno(error.rawValue))
        } catch {
            throw HardwareError(operation: operation, path: path, detail: "\(error)")
        }
    }

    /// open(2), close-on-exec, retried on EINTR; returns the descriptor. Straight from the
    /// String's own UTF-8: swift-system's FilePath parses and normalises every path first, a
    /// fifth of a `watch` poll's instructions (callgrind) for the few dozen sysfs files it opens.
    static func open(
        _ path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions? = nil
    ) throws(HardwareError) -> Int32 {
        let flags = mode.rawValue | options.union(.closeOnExec).rawValue
        while true {
            let fd = Glibc.open(path, flags, permissions?.rawValue ?? 0)
            if fd >= 0 { return fd }
            guard errno == EINTR else { throw HardwareError(operation: "open", path: path, errno: .current) }
        }
    }

    /// Reads a whole file with open(2)/read(2), retried on EINTR. sysfs attributes are at most
    /// a page, /proc files a few pages; `limit` bounds what a hostile or endless file can make
    /// us buffer. The chunk is raw memory, not a zero-filled array: it is read into, never read.
    static func readFile(_ path: String, limit: Int = 1 << 20, followingSymlinks: Bool = true) throws(HardwareError) -> [UInt8] {
        let fd = try open(path, .readOnly, options: followingSymlinks ? [] : .noFollow)
        defer { close(fd) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { chunk.deallocate() }
        var result: [UInt8] = []
        while result.count < limit {
            let n = Glibc.read(fd, chunk.baseAddress, chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw HardwareError(operation: "read", path: path, errno: .current)
            }
            if n == 0 { break }
            result.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
        return result
    }

    /// A file's text, decoded as UTF-8 with invalid bytes replaced.
    static func readText(_ path: String, followingSymlinks: Bool = true) throws(HardwareError) -> String {
        String(decoding: try readFile(path, followingSymlinks: followingSymlinks), as: UTF8.self)
    }

    /// pread(2) into `buffer` at `offset`; returns the byte count.
    static func pread(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int = 0, path: String
    ) throws(HardwareError) -> Int {
        try system("pread", path) {
            try FileDescriptor(rawValue: fd).read(fromAbsoluteOffset: Int64(offset), into: buffer, retryOnInterrupt: true)
        }
    }

    /// close(2). Errors are ignored: after close the descriptor is gone either way.
    static func close(_ fd: Int32) { try? FileDescriptor(rawValue: fd).close() }

    /// Names in a directory, without `.` and `..`, sorted.
    static func listDirectory(_ path: String) throws(HardwareError) -> [String] {
        guard let dir = opendir(path) else {
            throw HardwareError(operation: "opendir", path: path, errno: .current)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// What a path is, following symlinks; nil when it does not exist or cannot be stat'ed.
    enum FileKind: Sendable { case regular, directory, other }

    static func kind(of path: String) -> FileKind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// The file's permission bits (`st_mode & 0o777`, following links), nil when stat(2) fails.
    static func permissionBits(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode & 0o777)
    }

    /// The target of a symbolic link, as stored (possibly relative).
    static func readLink(_ path: String) throws(HardwareError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { throw HardwareError(operation: "readlink", path: path, errno: .current) }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// realpath(3): the absolute path with every symlink resolved.
    static func realPath(_ path: String) throws(HardwareError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw HardwareError(operation: "realpath", path: path, errno: .current)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: bluetooth

    /// open(2) read-only, for captures.
    static func openForReading(_ path: String) throws(HardwareError) -> Int32 {
        try open(path, .readOnly)
    }

    /// open(2) of a directory, for descriptors kept on /proc/PID/task.
    static func openDirectory(_ path: String) throws(HardwareError) -> Int32 {
        try open(path, .readOnly, options: .directory)
    }

    /// open(2) with O_CREAT|O_TRUNC for writing a capture, mode 0644.
    static func createFile(_ path: String) throws(HardwareError) -> Int32 {
        try open(path, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
    }

    /// write(2) until every byte is written, across short writes and EINTR.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(HardwareError) {
        _ = try system("write", path) { try FileDescriptor(rawValue: fd).writeAll(bytes) }
    }

    /// write(2) of a whole array, as `writeAll(_:_:path:)` on its bytes.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(HardwareError) {
        _ = try system("write", path) { try FileDescriptor(rawValue: fd).writeAll(bytes) }
    }

    /// fsync(2), so a finished recording survives a crash.
    static func sync(_ fd: Int32, path: String) throws(HardwareError) {
        if fsync(fd) != 0 { throw HardwareError(operation: "fsync", path: path, errno: .current) }
    }

    /// The wall clock in Unix microseconds (clock_gettime CLOCK_REALTIME), to stamp live events.
    static func realtimeMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// CLOCK_MONOTONIC in nanoseconds: comparable between processes of one boot.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

// MARK: power (device trees, state files)

extension Syscalls {
    /// What a directory entry itself is, without following a final symlink (lstat(2)).
    enum EntryKind: Sendable { case regular, directory, symlink, other }

    /// lstat(2); nil when the entry does not exist or cannot be stat'ed.
    static func entryKind(of path: String) -> EntryKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    /// Why this user cannot create files in directory `path` (access(2) W_OK|X_OK), or EROFS for
    /// the kernel's own file systems (proc, sysfs, cgroup, debugfs), where root passes access(2)
    /// but no file can be made; nil when files can be made there.
    static func createFailure(inDirectory path: String) -> Errno? {
        guard access(path, W_OK | X_OK) == 0 else { return Errno.current }
        var info = statfs()
        guard statfs(path, &info) == 0 else { return Errno.current }
        let kernel: Set<Int> = [0x9FA0, 0x6265_6572, 0x6367_7270, 0x27E0EB, 0x6462_6720]
        return kernel.contains(Int(info.f_type)) ? Errno(EROFS) : nil
    }

    /// The errno stat(2) fails with when following `path`, or nil when it succeeds.
    /// Used to report dangling symlinks in a device directory the same way on every path.
    static func statFailure(_ path: String) -> Errno? {
        var info = stat()
        return stat(path, &info) == 0 ? nil : Errno.current
    }

    /// The process environment as a dictionary (later entries win, as getenv(3) would not care).
    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// nanosleep(2) for `span` (at most a day), resuming after signals.
    static func sleep(for span: Duration) {
        guard span > .zero else { return }
        let (seconds, attoseconds) = min(span, .seconds(86_400)).components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

// MARK: file systems

extension Syscalls {
    /// statvfs(2): bytes available to unprivileged users (f_bavail, what a transfer written as
    /// its owner may use; root's reserve is not counted) and the file system's size, both in
    /// fragment units (f_frsize) as df counts them.
    static func fileSystemSpace(_ path: String) throws(HardwareError) -> (available: UInt64, total: UInt64) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw HardwareError(operation: "statvfs", path: path, errno: .current) }
        let unit = UInt64(info.f_frsize != 0 ? info.f_frsize : info.f_bsize)
        return (UInt64(info.f_bavail) * unit, UInt64(info.f_blocks) * unit)
    }
}

// MARK: event loops

extension Syscalls {
    /// A close-on-exec pipe: (read end, write end). Used to wake a thread blocked in poll(2).
    static func pipe() throws(HardwareError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else {
            throw HardwareError(operation: "pipe", path: "pipe", errno: .current)
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Writes one byte, ignoring a full pipe (the reader is already woken).
    static func poke(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }
}

// MARK: signals

extension Syscalls {
    /// Listeners' slots live in C (`joule_signal_slot_*`), read by the C handler with atomic
    /// loads; the lock orders registrations among themselves.
    private static let signalSlotCount = Int(JOULE_SIGNAL_SLOTS)
    // An Int, not (): under ThreadSanitizer a zero-sized value's inout access is reported at
    // the lock object's own address, where every caller reads its type, as a race (issue 33).
    private static let signalSlotLock = Locked(0)

    /// A listener's pipe: read the signal numbers from `read`; `slot` identifies it to
    /// `closeSignalPipe`.
    struct SignalPipe: Sendable {
        let read: Int32
        let write: Int32
        let slot: Int
    }

    /// Makes a pipe of this listener's own and installs, with sigaction(2) and before
    /// returning, a handler for `signals` that writes the signal number to the pipe of every
    /// listener asking for it (write(2) is async-signal-safe). Nothing is registered later on
    /// another thread, so a signal arriving the moment after this returns is never lost.
    static func openSignalPipe(_ signals: [Int32]) throws(HardwareError) -> SignalPipe {
        var mask: UInt64 = 0
        for number in signals where number > 0 && number < 32 { mask |= 1 << UInt64(number) }
        let ends = try pipe()
        _ = fcntl(ends.write, F_SETFL, O_NONBLOCK)
        let slot: Int? = signalSlotLock.withLock { _ in
            guard let free = (0..<signalSlotCount).first(where: { joule_signal_slot_load(Int32($0)) == 0 }) else { return nil }
            joule_signal_slot_store(Int32(free), mask << 32 | UInt64(UInt32(bitPattern: ends.write)))
            return free
        }
        guard let slot else {
            _ = Glibc.close(ends.read)
            _ = Glibc.close(ends.write)
            throw HardwareError(operation: "signal listener", path: "signals", detail: "too many signal listeners")
        }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = joule_signal_forward
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            guard sigaction(number, &action, nil) == 0 else {
                let failure = HardwareError(operation: "sigaction", path: "signal \(number)", errno: .current)
                closeSignalPipe(SignalPipe(read: ends.read, write: ends.write, slot: slot), signals: signals)
                throw failure
            }
        }
        return SignalPipe(read: ends.read, write: ends.write, slot: slot)
    }

    /// Stops delivering to this listener and wakes its reader with the pseudo-signal 0; no
    /// other listener is woken. The default action comes back for each signal no other
    /// listener still asks for. The pipe itself stays open for the life of the process: a
    /// handler running on another thread may still hold its descriptor.
    static func closeSignalPipe(_ pipe: SignalPipe, signals: [Int32]) {
        let stillWanted: UInt64 = signalSlotLock.withLock { _ in
            joule_signal_slot_store(Int32(pipe.slot), 0)
            var mask: UInt64 = 0
            for index in 0..<signalSlotCount { mask |= joule_signal_slot_load(Int32(index)) >> 32 }
            return mask
        }
        for number in signals where number > 0 && number < 32 && stillWanted & (1 << UInt64(number)) == 0 {
            _ = Glibc.signal(number, SIG_DFL)
        }
        var zero: UInt8 = 0
        _ = Glibc.write(pipe.write, &zero, 1)
    }

    /// Blocks until the listener's pipe yields a byte; nil when it fails.
    static func readSignal(_ fd: Int32) -> Int32? {
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n == 1 { return Int32(byte) }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

// MARK: standard streams

extension Syscalls {
    static var standardOutput: Int32 { STDOUT_FILENO }
    static var standardError: Int32 { STDERR_FILENO }
    static var brokenPipeSignal: Int32 { SIGPIPE }

    static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}

// MARK: signal numbers

extension Syscalls {
    enum SignalNumber {
        static let interrupt = SIGINT
        static let terminate = SIGTERM
        static let hangup = SIGHUP
        static let kill = SIGKILL
        static let stop = SIGSTOP
        static let cont = SIGCONT
    }
}
