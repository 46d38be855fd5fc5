/// Reads RAPL zones through powercap: `ROOT/sys/class/powercap/intel-rapl:N[:M]/{name,
/// energy_uj, max_energy_range_uj}`. AMD Zen uses the same driver and files.
///
/// `intel-rapl-mmio:*` is left out on purpose: the kernel's powercap documentation does not
/// describe it, and on the laptops that have it (processor_thermal_rapl) it exposes the same
/// package counter again through MMIO, so reading both would count the package twice.
public struct RAPLReader: Sendable {
    public let root: FileRoot
    private let readFile: @Sendable (String) throws(HardwareError) -> [UInt8]

    /// `readFile` reads one whole attribute; tests inject failures through it. Running as root
    /// ignores the 0400 mode of `energy_uj`, so an unprivileged read cannot be produced with
    /// file modes in a test run by root.
    public init(
        root: FileRoot = .live,
        readFile: @escaping @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
            try FileSystem.readBytes(path, limit: 4096)
        }
    ) {
        self.root = root
        self.readFile = readFile
    }

    static let classDirectory = "/sys/class/powercap"
    static let zonePrefix = "intel-rapl:"

    /// Every zone, parents before children. A machine without powercap gives an empty reading;
    /// this throws only when the root or the class directory exists but cannot be listed. A
    /// zone whose files fail is still listed, its values nil with the reason.
    public func read() throws(HardwareError) -> RAPLReading {
        guard Syscalls.kind(of: root.path("/")) == .directory else {
            let failure = Syscalls.statFailure(root.path("/")) ?? .notDirectory
            throw HardwareError(operation: "open root", path: root.description, errno: failure)
        }
        let directory = root.path(Self.classDirectory)
        guard FileSystem.kind(of: directory) != nil else { return RAPLReading() }
        var zones: [([Int], RAPLZone)] = []
        for entry in try FileSystem.listDirectory(directory) {
            guard let indices = Self.indices(entry) else { continue }
            zones.append((indices, zone(entry, indices: indices)))
        }
        zones.sort { $0.0.lexicographicallyPrecedes($1.0) }
        return RAPLReading(zones: zones.map(\.1))
    }

    /// `[0, 1]` for `intel-rapl:0:1`; nil for the control type `intel-rapl` and other names.
    static func indices(_ entry: String) -> [Int]? {
        guard entry.hasPrefix(zonePrefix) else { return nil }
        let parts = entry.dropFirst(zonePrefix.count).split(separator: ":", omittingEmptySubsequences: false)
        var indices: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 6, part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let index = Int(part)
            else { return nil }
            indices.append(index)
        }
        return indices.isEmpty ? nil : indices
    }

    private func zone(_ id: String, indices: [Int]) -> RAPLZone {
        let path = Self.classDirectory + "/" + id
        let parentID = indices.count > 1 ? Self.zonePrefix + indices.dropLast().map(String.init).joined(separator: ":") : nil
        let name = text(path + "/name")
        let energy = counter(path + "/energy_uj")
        let range = counter(path + "/max_energy_range_uj")
        var zone = RAPLZone(id: id, path: path, parentID: parentID, name: try? name.get())
        if case .failure(let reason) = name { zone.nameUnknown = reason }
        switch energy {
        case .success(let value): zone.energyMicrojoules = value
        case .failure(let reason): zone.energyUnknown = reason
        }
        switch range {
        case .success(let value): zone.maxRangeMicrojoules = value
        case .failure(let reason): zone.maxRangeUnknown = reason
        }
        return zone
    }

    /// The attribute's text, trimmed; `path` is relative to the root, as reasons report it.
    private func text(_ path: String) -> Result<String, RAPLUnknownReason> {
        do throws(HardwareError) {
            return .success(DeviceAttributePolicy.text(bytes: try readFile(root.path(path))))
        } catch {
            switch error.errno {
            case .permissionDenied?, .notPermitted?: return .failure(.rootOnly(path: path))
            case let errno?: return .failure(.readFailed(path: path, errno: errno))
            case nil: return .failure(.readFailed(path: path, errno: .ioError))
            }
        }
    }

    /// An unsigned decimal counter as the kernel prints a u64 (`%llu`); anything else is a parse
    /// error naming the file, never 0.
    private func counter(_ path: String) -> Result<UInt64, RAPLUnknownReason> {
        text(path).flatMap { text in
            guard let value = Self.parseCounter(text) else { return .failure(.unparseable(path: path, text: text)) }
            return .success(value)
        }
    }

    static func parseCounter(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return UInt64(text)
    }
}
