#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SystemPackage

/// Positioned writes and truncation for resumable downloads (`PartFile`; opening and renaming
/// are in OwnedFileSyscalls.swift), and the checks on an upload's source (`SourceFile`). Kept apart
/// from Syscalls.swift so the transfer pieces can be reviewed on their own.
extension Syscalls {
    /// pwrite(2) of every byte at `offset`, across short writes and EINTR.
    static func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String) throws(HardwareError) {
        var done = 0
        while done < bytes.count {
            let n = Glibc.pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw HardwareError(operation: "pwrite", path: path, errno: .current)
            }
            done += n
        }
    }

    /// ftruncate(2).
    static func truncate(_ fd: Int32, to length: Int64, path: String) throws(HardwareError) {
        while Glibc.ftruncate(fd, off_t(length)) != 0 {
            if errno == EINTR { continue }
            throw HardwareError(operation: "ftruncate", path: path, errno: .current)
        }
    }

    /// fstat(2) size in bytes.
    static func fileSize(_ fd: Int32, path: String) throws(HardwareError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HardwareError(operation: "fstat", path: path, errno: .current) }
        return Int64(info.st_size)
    }

    /// fstat(2) of an upload's source: its size, refusing anything but a regular file (a FIFO
    /// or a device has no length to send as Content-Length, and reading a directory fails late).
    static func regularFileSize(_ fd: Int32, path: String) throws(HardwareError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw HardwareError(operation: "fstat", path: path, errno: .current) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw HardwareError(operation: "open", path: path, detail: "not a regular file")
        }
        return Int64(info.st_size)
    }
}
