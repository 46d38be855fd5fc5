#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage
import JouleWire

// MARK: enforcement

/// File and crash-guard wrappers for pausing: what a signal handler must undo (frozen cgroups,
/// stopped processes) is kept here in tables it can read without allocating.
extension Syscalls {
    /// unlink(2); a missing file is not an error.
    static func removeFile(_ path: String) throws(HardwareError) {
        if unlink(path) != 0 && errno != ENOENT {
            throw HardwareError(operation: "unlink", path: path, errno: .current)
        }
    }

    /// The owner UID of `path` (stat(2)), nil when it cannot be stat'ed.
    static func fileOwner(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_uid
    }

    // MARK: frozen-cgroup guard

    /// Paths of `cgroup.freeze` files this process has written `1` to, readable from a signal
    /// handler: fixed NUL-terminated slots (an empty slot starts with NUL).
    private static let frozenSlotSize = 4096
    private static let frozenSlotCount = 64
    nonisolated(unsafe) private static var frozenTable: UnsafeMutablePointer<CChar> = {
        let table = UnsafeMutablePointer<CChar>.allocate(capacity: frozenSlotSize * frozenSlotCount)
        table.initialize(repeating: 0, count: frozenSlotSize * frozenSlotCount)
        return table
    }()
    /// The crash handlers that were installed before ours (the stopped-process guard's),
    /// indexed by signal number, called after thawing so both guards run.
    nonisolated(unsafe) private static var previousHandlers: UnsafeMutablePointer<Int> = {
        let table = UnsafeMutablePointer<Int>.allocate(capacity: 65)
        table.initialize(repeating: 0, count: 65)
        return table
    }()
    nonisolated(unsafe) private static var frozenGuardInstalled = false
    /// Orders the threads that mark and unmark: two claiming the same free slot at once lost a
    /// path, which a crash then left frozen. The crash handler reads without it.
    // An Int, not (): under ThreadSanitizer a zero-sized value's inout access is reported at
    // the lock object's own address, where every caller reads its type, as a race (issue 33).
    private static let frozenTableLock = Locked(0)

    /// Installs the stopped-process guard, then crash handlers that first write `0` to every
    /// recorded `cgroup.freeze` (open/write/close are async-signal-safe), then hand over to
    /// the stopped-process guard (SIGCONT to every recorded PID, then die of the signal).
    /// Call once, from the main thread, at startup.
    static func installPauseGuards() {
        installStoppedProcessGuard()
        if frozenGuardInstalled { return }
        frozenGuardInstalled = true
        _ = frozenTable
        _ = previousHandlers
        let handler: @convention(c) (Int32) -> Void = { signal in
            let table = Syscalls.frozenTable
            for slot in 0..<Syscalls.frozenSlotCount {
                let path = table + slot * Syscalls.frozenSlotSize
                if path.pointee == 0 { continue }
                let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
                if fd >= 0 {
                    var zero = UInt8(ascii: "0")
                    _ = Glibc.write(fd, &zero, 1)
                    _ = Glibc.close(fd)
                }
            }
            let previous = Syscalls.previousHandlers[Int(signal)]
            if previous != 0, let next = UnsafeRawPointer(bitPattern: previous) {
                unsafeBitCast(next, to: (@convention(c) (Int32) -> Void).self)(signal)
            }
            _ = Glibc.signal(signal, SIG_DFL)
            _ = raise(signal)
        }
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            let previous = Glibc.signal(signal, handler)
            // SIG_DFL (0), SIG_IGN (1) and SIG_ERR (-1) are not functions to call.
            let address = previous.map { Int(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
            previousHandlers[Int(signal)] = address > 1 ? address : 0
        }
    }

    /// Records `freezeFile` (a `cgroup.freeze` path) as possibly frozen by us; false when the
    /// table is full or the path too long to keep.
    static func markPossiblyFrozen(_ freezeFile: String) -> Bool {
        let bytes = Array(freezeFile.utf8)
        guard !bytes.isEmpty, bytes.count < frozenSlotSize, !bytes.contains(0) else { return false }
        return frozenTableLock.withLock { _ in
            if frozenSlot(of: bytes) != nil { return true }
            for slot in 0..<frozenSlotCount where frozenTable[slot * frozenSlotSize] == 0 {
                let start = frozenTable + slot * frozenSlotSize
                // Write the tail first and the first byte last: the handler never sees half a path.
                for (index, byte) in bytes.enumerated().dropFirst() { start[index] = CChar(bitPattern: byte) }
                start[bytes.count] = 0
                start[0] = CChar(bitPattern: bytes[0])
                return true
            }
            return false
        }
    }

    /// Forgets `freezeFile` once it has been thawed for good.
    static func unmarkPossiblyFrozen(_ freezeFile: String) {
        let bytes = Array(freezeFile.utf8)
        frozenTableLock.withLock { _ in
            if let slot = frozenSlot(of: bytes) { frozenTable[slot * frozenSlotSize] = 0 }
        }
    }

    /// Whether `freezeFile` is recorded as possibly frozen (for tests of the freezer).
    static func isMarkedPossiblyFrozen(_ freezeFile: String) -> Bool {
        frozenTableLock.withLock { _ in frozenSlot(of: Array(freezeFile.utf8)) != nil }
    }

    private static func frozenSlot(of bytes: [UInt8]) -> Int? {
        for slot in 0..<frozenSlotCount {
            let start = frozenTable + slot * frozenSlotSize
            if start[0] == 0 { continue }
            var equal = true
            for (index, byte) in bytes.enumerated() where start[index] != CChar(bitPattern: byte) {
                equal = false
                break
            }
            if equal && start[bytes.count] == 0 { return slot }
        }
        return nil
    }
}

// MARK: enforcement locks

extension Syscalls {
    /// Opens (creating, mode 0600) `path` and takes an exclusive flock(2) on it without
    /// waiting. Returns the descriptor, or nil when another process holds the lock. The lock
    /// lasts until the descriptor is closed or the process ends, however it ends.
    static func tryLockFile(_ path: String) throws(HardwareError) -> Int32? {
        let fd = try open(path, .readWrite, options: .create, permissions: .ownerReadWrite)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let failure = Errno.current
            _ = Glibc.close(fd)
            if failure == Errno(EWOULDBLOCK) { return nil }
            throw HardwareError(operation: "flock", path: path, errno: failure)
        }
        return fd
    }
}

// MARK: app cgroups

extension Syscalls {
    /// rmdir(2); a missing directory is not an error.
    static func removeDirectory(_ path: String) throws(HardwareError) {
        if rmdir(path) != 0 && errno != ENOENT {
            throw HardwareError(operation: "rmdir", path: path, errno: .current)
        }
    }

    /// access(2) W_OK, for the real user.
    static func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }
}
