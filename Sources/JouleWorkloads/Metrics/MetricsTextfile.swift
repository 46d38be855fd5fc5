import JouleHardware

/// `joule export --textfile DIR`: the daemon's metrics as `DIR/joule.prom` for
/// node_exporter's textfile collector. Written whole to a temporary name in `DIR` (which does
/// not end in `.prom`, so the collector never reads it half-written), synced and renamed over.
public enum MetricsTextfile {
    public static let fileName = "joule.prom"

    public enum Failure: Error, Sendable, CustomStringConvertible {
        case notADirectory(String)
        case write(HardwareError)

        public var description: String {
            switch self {
            case .notADirectory(let path): "\(path) is not a directory (node_exporter's --collector.textfile.directory)"
            case .write(let error): "cannot write the textfile: \(error)"
            }
        }
    }

    /// Writes `text` to `directory/joule.prom`; returns the path. World-readable (0644), as
    /// node_exporter runs as its own user.
    @discardableResult
    public static func write(_ text: String, directory: String) throws(Failure) -> String {
        guard FileSystem.kind(of: directory) == .directory else { throw .notADirectory(directory) }
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + fileName
        do {
            try AtomicFile.write(text, to: path, mode: 0o644)
        } catch {
            throw .write(error)
        }
        return path
    }
}
