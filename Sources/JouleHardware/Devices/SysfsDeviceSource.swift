/// The fixture device source: reads `ROOT/sys/class/<subsystem>/*` directly, following each
/// class link into `ROOT/sys/devices/...`, and reports what libudev would for the same tree.
public struct SysfsDeviceSource: DeviceSource {
    /// The tree's root as given (the directory holding `sys/`).
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// Fails with the path and errno when the root itself cannot be read, or when its `sys/`
    /// or `sys/class/` cannot be listed (that would read as a machine without devices); an
    /// absent `sys/class/<subsystem>` is an empty list, as on a machine without that hardware.
    /// For a command's up-front check: `devices` checks only what each call needs.
    public func checkRoot() throws(HardwareError) {
        try checkTop()
        for part in ["/sys", "/sys/class"] {
            if try Self.isPresent(root + part) { _ = try Syscalls.listDirectory(root + part) }
        }
    }

    /// The root is a directory this user may list.
    private func checkTop() throws(HardwareError) {
        guard Syscalls.kind(of: root) == .directory else {
            let failure = Syscalls.statFailure(root) ?? .notDirectory
            throw HardwareError(operation: "open root", path: root, errno: failure)
        }
        _ = try Syscalls.listDirectory(root)
    }

    /// Whether `path` exists; absent (ENOENT, ENOTDIR) is false, and unreachable (EACCES on a
    /// directory above it) throws: a tree that cannot be read is never an empty machine.
    private static func isPresent(_ path: String) throws(HardwareError) -> Bool {
        guard Syscalls.kind(of: path) == nil else { return true }
        if let failure = Syscalls.statFailure(path), failure != .noEntry, failure != .notDirectory {
            throw HardwareError(operation: "stat", path: path, errno: failure)
        }
        return false
    }

    public func devices(subsystem: String) throws(HardwareError) -> [DeviceSnapshot] {
        try checkTop()
        let resolvedRoot = try Syscalls.realPath(root)
        let classDirectory = root + "/sys/class/" + subsystem
        guard try Self.isPresent(classDirectory) else { return [] }
        let names = try Syscalls.listDirectory(classDirectory)

        var snapshots: [DeviceSnapshot] = []
        for name in names {
            // A link that leads nowhere or outside the tree's /sys/devices is not a device.
            guard let devicePath = try? Syscalls.realPath(classDirectory + "/" + name),
                Syscalls.kind(of: devicePath) == .directory
            else { continue }
            let sysPrefix = resolvedRoot == "/" ? "/sys/devices/" : resolvedRoot + "/sys/devices/"
            guard devicePath.hasPrefix(sysPrefix) else { continue }
            let syspath = "/sys/devices/" + devicePath.dropFirst(sysPrefix.count)
            snapshots.append(snapshot(subsystem: subsystem, sysname: name, syspath: syspath, directory: devicePath))
        }
        return snapshots.sorted { $0.sysname < $1.sysname }
    }

    private func snapshot(subsystem: String, sysname: String, syspath: String, directory: String) -> DeviceSnapshot {
        var attributes: [String: AttributeRead] = [:]
        let entries = (try? Syscalls.listDirectory(directory)) ?? []
        for name in entries where DeviceAttributePolicy.isCandidateName(name) {
            let path = directory + "/" + name
            switch DeviceAttributePolicy.classify(path) {
            case .skip:
                continue
            case .dangling(let failure):
                attributes[name] = .failed(failure)
            case .read:
                do {
                    attributes[name] = .value(DeviceAttributePolicy.text(bytes: try Syscalls.readFile(path)))
                } catch {
                    attributes[name] = .failed(error.errno ?? .ioError)
                }
            }
        }
        return DeviceSnapshot(
            subsystem: subsystem, sysname: sysname, syspath: syspath,
            properties: Self.properties(directory: directory, subsystem: subsystem, sysname: sysname, syspath: syspath),
            attributes: attributes)
    }

    public func refresh(_ device: DeviceSnapshot, attributes names: [String]) -> DeviceSnapshot? {
        let directory = root + device.syspath
        guard Syscalls.kind(of: directory) == .directory else { return nil }
        var device = device
        for name in names {
            // Open follows a dangling link to ENOENT, the errno a full read reports for it.
            do {
                device.attributes[name] = .value(DeviceAttributePolicy.text(bytes: try Syscalls.readFile(directory + "/" + name)))
            } catch {
                device.attributes[name] = .failed(error.errno ?? .ioError)
            }
        }
        return device
    }

    public func memberNames(subsystem: String) -> [String]? {
        (try? Syscalls.listDirectory(root + "/sys/class/" + subsystem)) ?? []
    }

    /// Text up to the first NUL, as libudev hands attribute values out as C strings.
    static func cText(_ bytes: [UInt8]) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The `uevent` file's KEY=value lines plus the keys udev always adds (DEVPATH,
    /// SUBSYSTEM), so the fixture path matches what libudev reports for the same tree.
    static func properties(directory: String, subsystem: String, sysname: String, syspath: String) -> [String: String] {
        var properties: [String: String] = [:]
        if let bytes = try? Syscalls.readFile(directory + "/uevent") {
            for line in cText(bytes).split(whereSeparator: { $0 == "\n" }) {
                guard let equals = line.firstIndex(of: "=") else { continue }
                let key = String(line[..<equals])
                guard !key.isEmpty else { continue }
                properties[key] = String(line[line.index(after: equals)...])
            }
        }
        properties["DEVPATH"] = String(syspath.dropFirst("/sys".count))
        properties["SUBSYSTEM"] = subsystem
        return properties
    }
}
