#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// inotify(7) for `DirectoryWatch`: directories created and removed under watched ones
/// (cgroupfs reports a new cgroup as IN_CREATE on its parent, and its removal as IN_DELETE).
extension Syscalls {
    static let inotifyDirectoryChanges = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_ONLYDIR)

    static func inotifyOpen() throws(HardwareError) -> Int32 {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if fd < 0 { throw HardwareError(operation: "inotify_init1", path: "", errno: .current) }
        return fd
    }

    /// A watch descriptor for `path`'s directory changes.
    static func inotifyWatch(_ fd: Int32, _ path: String) throws(HardwareError) -> Int32 {
        let wd = inotify_add_watch(fd, path, inotifyDirectoryChanges)
        if wd < 0 { throw HardwareError(operation: "inotify_add_watch", path: path, errno: .current) }
        return wd
    }

    static func inotifyUnwatch(_ fd: Int32, _ wd: Int32) { _ = inotify_rm_watch(fd, wd) }

    /// Every event waiting (non-blocking): the watch it came from, whether its watch is gone
    /// (IN_IGNORED: the directory was removed), and the entry's name.
    static func inotifyRead(_ fd: Int32) -> [(wd: Int32, gone: Bool, name: String)] {
        var events: [(wd: Int32, gone: Bool, name: String)] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer, size)
            guard count > 0 else { return events }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                guard offset + header + length <= count else { break }
                var name = ""
                if length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: length)
                    name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                events.append((event.wd, event.mask & UInt32(IN_IGNORED) != 0, name))
                offset += header + length
            }
        }
    }
}
