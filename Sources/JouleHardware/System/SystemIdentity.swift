/// What machine and OS this is, for report headers. Every field is nil when unknown.
public struct SystemIdentity: Sendable, Hashable {
    /// PRETTY_NAME from os-release, e.g. `Debian GNU/Linux 12 (bookworm)`.
    public var osName: String?
    /// Kernel release, e.g. `6.1.0-18-amd64`.
    public var kernelRelease: String?
    /// Machine architecture, e.g. `x86_64`.
    public var machine: String?
    /// DMI product name, or the device-tree model on boards without DMI.
    public var hardwareModel: String?

    public init(osName: String?, kernelRelease: String?, machine: String?, hardwareModel: String?) {
        self.osName = osName
        self.kernelRelease = kernelRelease
        self.machine = machine
        self.hardwareModel = hardwareModel
    }

    /// `Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-18-amd64 x86_64)`, or what is known of it.
    public var osVersion: String? {
        var kernel = ["Linux", kernelRelease, machine].compactMap { $0 }
        if kernel.count == 1 { kernel = [] }
        switch (osName, kernel.isEmpty) {
        case (nil, true): return nil
        case (let name?, true): return name
        case (nil, false): return kernel.joined(separator: " ")
        case (let name?, false): return "\(name) (\(kernel.joined(separator: " ")))"
        }
    }

    /// Reads os-release, the kernel release and the model under `root`. On the live root the
    /// kernel release and machine come from uname(2); on a fixture, from its
    /// proc/sys/kernel/{osrelease,arch}.
    public static func read(root: String = "/") -> SystemIdentity {
        let prefix = FileRoot(root).prefix
        func text(_ path: String) -> String? {
            guard let raw = try? Syscalls.readText(prefix + path) else { return nil }
            let value = raw.procTrimmed([" ", "\n", "\0", "\t"])
            return value.isEmpty ? nil : value
        }
        let osRelease = text("/etc/os-release") ?? text("/usr/lib/os-release")
        var release = text("/proc/sys/kernel/osrelease")
        var machine = text("/proc/sys/kernel/arch")
        if prefix.isEmpty, let names = Syscalls.kernelRelease() {
            release = names.release
            machine = names.machine
        }
        let dmi = text("/sys/class/dmi/id/product_name")
        let model = dmi ?? text("/proc/device-tree/model") ?? text("/sys/firmware/devicetree/base/model")
        return SystemIdentity(
            osName: osRelease.flatMap { Self.prettyName(fromOSRelease: $0) }, kernelRelease: release, machine: machine,
            hardwareModel: model)
    }

    /// PRETTY_NAME (else NAME VERSION) from os-release text, quotes removed.
    public static func prettyName(fromOSRelease text: String) -> String? {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals])
            var value = Substring(line[line.index(after: equals)...])
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = value.dropFirst().dropLast()
            }
            values[key] = String(value)
        }
        if let pretty = values["PRETTY_NAME"], !pretty.isEmpty { return pretty }
        let parts = [values["NAME"], values["VERSION"]].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The login name of `uid` from ROOT/etc/passwd; nil when not listed.
    public static func userName(uid: UInt32, root: String = "/") -> String? {
        let prefix = FileRoot(root).prefix
        guard let text = try? Syscalls.readText(prefix + "/etc/passwd") else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            if fields.count > 2, UInt32(fields[2]) == uid { return String(fields[0]) }
        }
        return nil
    }
}
