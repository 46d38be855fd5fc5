/// Replaces a file so that readers see the old contents or the new, never a torn file, and
/// the new name survives a crash: a temporary file in the same directory, fsync, rename(2),
/// then fsync of the directory. State files, journals, reports and the textfile export are all
/// written this way, under a descriptor of the directory (`OwnedDirectory`): the temporary name
/// is unguessable and created with O_EXCL, nothing follows a symlink, and the rename stays in
/// the directory that was opened.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(HardwareError) {
        let (directory, name) = OwnedDirectory.split(path)
        try OwnedDirectory(path: directory, owner: nil).replace(name, with: bytes, mode: mode)
    }

    public static func write(_ text: String, to path: String, mode: UInt32 = 0o644) throws(HardwareError) {
        try write(Array(text.utf8), to: path, mode: mode)
    }
}
