import JouleWire
import JouleHardware
import JouleEnergy

/// The desktop settings the session agent changed for Low Power Mode, on disk in the state
/// directory (`STATE/session-journal.json`), saved atomically before each write so the next
/// start after a crash puts them back (as `KnobJournal` does for the CPU knobs):
///
/// ```json
/// {"version":1,"settings":[{"setting":"gsettings org.gnome.desktop.interface enable-animations",
///                           "original":"true","written":"false"}]}
/// ```
/// `original` is null for a value that was unset (a key absent from kdeglobals).
public struct SessionJournal: Sendable {
    public static let fileName = "session-journal.json"
    public let path: String

    public init(path: String) { self.path = path }

    public init(directory: StateDirectory) { path = directory.file(Self.fileName) }

    public struct Entry: Sendable, Hashable {
        /// The `SessionSetting.id`.
        public var setting: String
        public var original: String?
        public var written: String

        public init(setting: String, original: String?, written: String) {
            self.setting = setting
            self.original = original
            self.written = written
        }
    }

    /// The entries in order of application; empty when there is no journal. Throws on an
    /// unreadable or malformed file.
    public func load() throws(HardwareError) -> [Entry] {
        guard let text = try JournalFile(path: path).read() else { return [] }
        return try Self.decode(text, path: path)
    }

    /// Writes the journal atomically (0600 in a 0700 directory), or removes it when empty.
    public func save(_ entries: [Entry]) throws(HardwareError) {
        if entries.isEmpty {
            try JournalFile(path: path).remove()
        } else {
            try JournalFile(path: path).write(Self.encode(entries))
        }
    }

    public static func encode(_ entries: [Entry]) -> String {
        JSONValue.object([
            "version": .int(1),
            "settings": .array(entries.map { entry in
                .object(["setting": .string(entry.setting), "original": .from(entry.original), "written": .string(entry.written)])
            }),
        ]).serialized
    }

    public static func decode(_ text: String, path: String) throws(HardwareError) -> [Entry] {
        func bad(_ detail: String) -> HardwareError { HardwareError(operation: "parse", path: path, detail: detail) }
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw bad("not JSON: \(error)")
        }
        guard case .object = root, root["version"]?.intValue == 1 else { throw bad("expected a version 1 object") }
        guard let settings = root["settings"]?.arrayValue else { throw bad("missing `settings` list") }
        var entries: [Entry] = []
        for (index, item) in settings.enumerated() {
            let original = item["original"]
            guard let setting = item["setting"]?.stringValue, let written = item["written"]?.stringValue,
                  original == nil || original == .null || original?.stringValue != nil
            else { throw bad("settings[\(index)]: needs setting, written and original (a string or null)") }
            entries.append(Entry(setting: setting, original: original?.stringValue, written: written))
        }
        return entries
    }
}
