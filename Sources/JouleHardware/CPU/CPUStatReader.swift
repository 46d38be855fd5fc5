/// Reads `ROOT/proc/stat`; the root is `/` live or a fixture tree in tests.
public struct CPUStatReader: Sendable {
    public let path: String

    public init(root: String = "/") {
        path = FileRoot(root).path("/proc/stat")
    }

    public func read() throws(HardwareError) -> CPUStat {
        try CPUStat.parse(bytes: try Syscalls.readFile(path), path: path)
    }
}
