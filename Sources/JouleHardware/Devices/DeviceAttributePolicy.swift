/// Which entries of a device directory count as attributes, shared by the libudev and the
/// fixture source so that both yield the same snapshot for the same tree.
///
/// - Regular files readable by mode are attributes (write-only ones fail with EIO even for
///   root, so they are skipped rather than reported as broken). A file with no permission
///   bit at all was made unreadable: it is an attribute, whose read reports EACCES.
/// - `uevent` is parsed into properties instead.
/// - Symlinks to existing targets (`subsystem`, `device`, `driver`) and directories are
///   structure, not attributes.
/// - A dangling symlink is an attribute whose read fails: fixtures use it to stand for a
///   sensor that errors (see hw-fixtures/README.md). Its errno comes from stat(2) on both paths.
enum DeviceAttributePolicy {
    enum Decision: Equatable {
        case read
        case dangling(Errno)
        case skip
    }

    /// Links that are structure in every device directory, even when they dangle.
    static let structuralLinks: Set<String> = ["subsystem", "device", "driver", "module", "firmware_node", "of_node"]

    /// Top-level names only; libudev may also list attributes of subdirectories (`power/...`).
    static func isCandidateName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "uevent" && !structuralLinks.contains(name)
    }

    static func classify(_ path: String) -> Decision {
        switch Syscalls.entryKind(of: path) {
        case .regular?:
            return Syscalls.permissionBits(path).map { isAttribute(mode: $0) } == true ? .read : .skip
        case .symlink?:
            if let failure = Syscalls.statFailure(path) { return .dangling(failure) }
            return .skip
        default:
            return .skip
        }
    }

    /// Readable by someone (0o444), or made unreadable (no bit at all); not write-only.
    static func isAttribute(mode bits: UInt32) -> Bool { bits & 0o444 != 0 || bits == 0 }

    /// Names in `directory` that libudev leaves out of its attribute list but `classify`
    /// reads: files with no permission bit (sd-device lists only owner-readable files).
    static func unreadableNames(in directory: String, besides listed: [String]) -> [String] {
        let known = Set(listed)
        return ((try? Syscalls.listDirectory(directory)) ?? []).filter { name in
            !known.contains(name) && isCandidateName(name) && Syscalls.entryKind(of: directory + "/" + name) == .regular
                && Syscalls.permissionBits(directory + "/" + name) == 0
        }
    }

    /// Attribute text as both sources report it: up to the first NUL (libudev hands values out
    /// as C strings), surrounding whitespace and newlines trimmed.
    static func text(_ raw: String) -> String {
        text(bytes: Array(raw.utf8))
    }

    /// The same from raw file bytes, trimming before decoding: polling reads dozens of
    /// attributes a second, and byte trimming avoids re-building each string.
    static func text(bytes: [UInt8]) -> String {
        var end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        var start = bytes.startIndex
        while start < end, isTrimmed(bytes[start]) { start += 1 }
        while end > start, isTrimmed(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func isTrimmed(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }
}
