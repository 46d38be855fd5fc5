/// Replaces a file so that readers see the old contents or the new, never a torn file, and
/// the new name survives a crash: a temporary file in the same directory, fsync, rename(2),
/// then fsync of the directory. State files, journals and reports are all written this way.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(HardwareError) {
        try Syscalls.writeFileAtomically(path, bytes, mode: mode)
    }

    public static func write(_ text: String, to path: String, mode: UInt32 = 0o644) throws(HardwareError) {
        try write(Array(text.utf8), to: path, mode: mode)
    }
}
