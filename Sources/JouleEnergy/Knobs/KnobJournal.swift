import JouleWire
import JouleHardware

/// The knobs joule has written, on disk in the runtime directory
/// (`RUNTIME/lowpower-knobs.json`), saved atomically before the first write, so a restart
/// after a crash on the same boot puts them back:
///
/// ```json
/// {"version":1,"boot_id":"c0721dc1-…",
///  "knobs":[{"knob":"scaling_governor","path":"/sys/devices/system/cpu/cpufreq/policy0/scaling_governor",
///            "original":"performance","written":"powersave"}]}
/// ```
public struct KnobJournal: Sendable {
    public static let fileName = "lowpower-knobs.json"
    public let path: String

    public init(path: String) { self.path = path }

    public init(directory: RuntimeDirectory) { path = directory.file(Self.fileName) }

    public struct Entry: Sendable, Hashable {
        public var knob: String
        public var path: String
        public var original: String
        public var written: String

        public init(knob: String, path: String, original: String, written: String) {
            self.knob = knob
            self.path = path
            self.original = original
            self.written = written
        }
    }

    public struct Contents: Sendable, Hashable {
        /// The boot the writes were made in; nil when it could not be read.
        public var bootID: String?
        /// In order of application.
        public var entries: [Entry]

        public init(bootID: String?, entries: [Entry]) {
            self.bootID = bootID
            self.entries = entries
        }
    }

    /// The journal, or nil when there is none. Throws on an unreadable or malformed file.
    public func load() throws(HardwareError) -> Contents? {
        guard let text = try JournalFile(path: path).read() else { return nil }
        return try Self.decode(text, path: path)
    }

    /// Writes the journal atomically (mode 0600, its directory 0700), or removes it when
    /// nothing is held.
    public func save(_ contents: Contents) throws(HardwareError) {
        if contents.entries.isEmpty {
            try remove()
        } else {
            try JournalFile(path: path).write(Self.encode(contents))
        }
    }

    public func remove() throws(HardwareError) { try JournalFile(path: path).remove() }

    public static func encode(_ contents: Contents) -> String {
        let object: JSONObject = [
            "version": .int(1),
            "boot_id": .from(contents.bootID),
            "knobs": .array(contents.entries.map { entry in
                .object([
                    "knob": .string(entry.knob), "path": .string(entry.path),
                    "original": .string(entry.original), "written": .string(entry.written),
                ])
            }),
        ]
        return JSONValue.object(object).serialized
    }

    public static func decode(_ text: String, path: String) throws(HardwareError) -> Contents {
        func bad(_ detail: String) -> HardwareError { HardwareError(operation: "parse", path: path, detail: detail) }
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw bad("not JSON: \(error)")
        }
        guard case .object = root else { throw bad("expected a JSON object") }
        guard root["version"]?.intValue == 1 else { throw bad("unsupported version") }
        guard let knobs = root["knobs"]?.arrayValue else { throw bad("missing `knobs` list") }
        var entries: [Entry] = []
        for (index, item) in knobs.enumerated() {
            guard let knob = item["knob"]?.stringValue, let file = item["path"]?.stringValue, file.hasPrefix("/"),
                  !file.split(separator: "/").contains(".."),
                  let original = item["original"]?.stringValue, let written = item["written"]?.stringValue
            else { throw bad("knobs[\(index)]: needs knob, an absolute path without `..`, original and written") }
            entries.append(Entry(knob: knob, path: file, original: original, written: written))
        }
        return Contents(bootID: root["boot_id"]?.stringValue, entries: entries)
    }
}
