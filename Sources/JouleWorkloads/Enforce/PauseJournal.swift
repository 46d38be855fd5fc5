import JouleWire
import JouleHardware
import JouleEnergy

/// What `joule enforce` holds paused, on disk (`$JOULE_STATE_DIR/enforce-paused.json`), so a
/// run that was killed with SIGKILL (no handler runs) leaves a record: the next
/// `joule enforce` (or `joule enforce --resume-all`) continues and thaws it. Written
/// atomically before every pause and after every resume:
///
/// ```json
/// {"version":1,"owner":{"pid":4242,"startTime":912345},
///  "paused":[{"kind":"process","pid":5151,"startTime":913000,"name":"ffmpeg","classes":["transcode"]},
///            {"kind":"cgroup","cgroup":"/system.slice/backup.service","classes":["backups"]}]}
/// ```
public struct PauseJournal: Sendable {
    public static let fileName = "enforce-paused.json"
    public let path: String

    public init(path: String) { self.path = path }

    public init(directory: String) { path = directory + "/" + Self.fileName }

    public struct Entry: Sendable, Hashable {
        public var target: PauseTarget
        public var classes: [String]

        public init(target: PauseTarget, classes: [String]) {
            self.target = target
            self.classes = classes
        }
    }

    public struct Contents: Sendable, Hashable {
        /// The run that wrote the journal.
        public var owner: ProcessIdentity?
        public var entries: [Entry]

        public init(owner: ProcessIdentity?, entries: [Entry]) {
            self.owner = owner
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
        var object: JSONObject = ["version": .int(1)]
        object["owner"] = contents.owner.map {
            .object(["pid": .int(Int($0.pid)), "startTime": .string(String($0.startTimeTicks))])
        } ?? .null
        object["paused"] = .array(contents.entries.map { entry in
            var item: JSONObject
            switch entry.target {
            case .cgroup(let cgroup):
                item = ["kind": .string("cgroup"), "cgroup": .string(cgroup)]
            case .process(let identity, let name):
                // The start time is a string: ticks since boot can exceed what every JSON
                // reader keeps exact in a double.
                item = ["kind": .string("process"), "pid": .int(Int(identity.pid)),
                        "startTime": .string(String(identity.startTimeTicks)), "name": .string(name)]
            }
            item["classes"] = .array(entry.classes.map(JSONValue.string))
            return .object(item)
        })
        return JSONValue.object(object).serialized
    }

    /// Decodes a journal.
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
        func identity(_ node: JSONValue?) -> ProcessIdentity? {
            guard let pid = node?["pid"]?.intValue, pid > 0, pid <= Int(Int32.max),
                  let text = node?["startTime"]?.stringValue, let start = UInt64(text)
            else { return nil }
            return ProcessIdentity(pid: Int32(pid), startTimeTicks: start)
        }
        var entries: [Entry] = []
        guard let paused = root["paused"]?.arrayValue else { throw bad("missing `paused` list") }
        for (index, item) in paused.enumerated() {
            let classes = item["classes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            switch item["kind"]?.stringValue {
            case "process":
                guard let identity = identity(item) else { throw bad("paused[\(index)]: bad pid or startTime") }
                let name = item["name"]?.stringValue ?? "?"
                entries.append(Entry(target: .process(identity, name: name), classes: classes))
            case "cgroup":
                guard let cgroup = item["cgroup"]?.stringValue,
                      let normal = CgroupPath(validating: cgroup) else {
                    throw bad("paused[\(index)]: bad cgroup")
                }
                entries.append(Entry(target: .cgroup(normal.description), classes: classes))
            default:
                throw bad("paused[\(index)]: unknown kind")
            }
        }
        return Contents(owner: identity(root["owner"]), entries: entries)
    }
}
