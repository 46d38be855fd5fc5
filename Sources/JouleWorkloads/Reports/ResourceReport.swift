import Foundation
import JouleWire
import JouleHardware
import JouleEnergy

/// An EXC_RESOURCE CPU report in the spirit of Apple's crash and energy reports: what ran
/// away, by how much, what was done, and where its threads were.
public struct ResourceReport: Sendable, Equatable {
    public var incidentIdentifier: String
    public var timestamp: Date
    public var processName: String
    public var pid: Int32
    public var processStartTimeTicks: UInt64
    public var path: String?
    public var commandLine: [String]?
    public var parentName: String?
    public var parentPid: Int32
    public var uid: UInt32?
    public var userName: String?
    public var cgroup: String?
    public var osVersion: String?
    public var hardwareModel: String?
    /// True when the process was killed (subtype CPU_FATAL).
    public var fatal: Bool
    public var limitPercent: Double
    public var windowSeconds: Double
    public var cpuSeconds: Double
    public var observedSeconds: Double
    /// The configured action: kill, throttle or report.
    public var action: String
    public var dryRun: Bool
    /// What was actually done, in words.
    public var actionTaken: String
    public var terminationReason: String?
    public var threads: [ReportThread]

    public init(
        incidentIdentifier: String = RandomUUID.uppercase(), timestamp: Date, processName: String, pid: Int32,
        processStartTimeTicks: UInt64, path: String?, commandLine: [String]?, parentName: String?, parentPid: Int32,
        uid: UInt32?, userName: String?, cgroup: String?, osVersion: String?, hardwareModel: String?, fatal: Bool,
        limitPercent: Double, windowSeconds: Double, cpuSeconds: Double, observedSeconds: Double, action: String,
        dryRun: Bool, actionTaken: String, terminationReason: String?, threads: [ReportThread]
    ) {
        self.incidentIdentifier = incidentIdentifier
        self.timestamp = timestamp
        self.processName = processName
        self.pid = pid
        self.processStartTimeTicks = processStartTimeTicks
        self.path = path
        self.commandLine = commandLine
        self.parentName = parentName
        self.parentPid = parentPid
        self.uid = uid
        self.userName = userName
        self.cgroup = cgroup
        self.osVersion = osVersion
        self.hardwareModel = hardwareModel
        self.fatal = fatal
        self.limitPercent = limitPercent
        self.windowSeconds = windowSeconds
        // Stored as the JSON sidecar stores them, so a report read back renders identically.
        self.cpuSeconds = (cpuSeconds * 100).rounded() / 100
        self.observedSeconds = (observedSeconds * 1000).rounded() / 1000
        self.action = action
        self.dryRun = dryRun
        self.actionTaken = actionTaken
        self.terminationReason = terminationReason
        self.threads = threads
    }

    public var exceptionType: String { "EXC_RESOURCE" }
    public var exceptionSubtype: String { fatal ? "CPU_FATAL" : "CPU" }
    public var exceptionNote: String? { fatal ? nil : "NON-FATAL CONDITION" }

    /// Average over the observed span, in percent of one core, rounded.
    public var observedPercent: Int { Self.observedPercent(cpuSeconds: cpuSeconds, observedSeconds: observedSeconds) }

    /// `(Limit 80%) Observed 97% over 50 seconds`
    public var exceptionMessage: String {
        Self.exceptionMessage(limitPercent: limitPercent, cpuSeconds: cpuSeconds, observedSeconds: observedSeconds)
    }

    /// The average of `cpuSeconds` over `observedSeconds`, in percent of one core, rounded.
    public static func observedPercent(cpuSeconds: Double, observedSeconds: Double) -> Int {
        guard observedSeconds > 0, cpuSeconds.isFinite else { return 0 }
        return Int((cpuSeconds / observedSeconds * 100).rounded())
    }

    /// The Exception Message of a report on this usage, for callers that word a violation
    /// before (or without) building the whole report: `(Limit 80%) Observed 97% over 50 seconds`.
    public static func exceptionMessage(limitPercent: Double, cpuSeconds: Double, observedSeconds: Double) -> String {
        let percent = observedPercent(cpuSeconds: cpuSeconds, observedSeconds: observedSeconds)
        return "(Limit \(number(limitPercent))%) Observed \(percent)% over \(spanSeconds(observedSeconds)) seconds"
    }

    /// `48 seconds cpu time over 50 seconds (97% cpu average), exceeding limit of 80% cpu over 60 seconds`
    public var cpuSummary: String {
        "\(Self.spanSeconds(cpuSeconds)) seconds cpu time over \(Self.spanSeconds(observedSeconds)) seconds "
            + "(\(observedPercent)% cpu average), exceeding limit of \(Self.number(limitPercent))% cpu over "
            + "\(Self.number(windowSeconds)) seconds"
    }

    /// A file-name stem: `name-2026-11-21-231420-6C1E2F3A`.
    public var fileStem: String {
        let safe = String(processName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return "\(safe.isEmpty ? "process" : safe)-\(Self.stamp(timestamp))-\(incidentIdentifier.prefix(8))"
    }

    /// Whole seconds, truncated as XNU's ledger counts them (48.5 s of CPU is "48 seconds").
    static func wholeSeconds(_ value: Double) -> Int {
        guard value.isFinite, value >= 0, value < 1e15 else { return 0 }
        return Int((value + 1e-6).rounded(.down))
    }

    /// A span in seconds as the summaries word it: whole seconds from 10 s on, as XNU's ledger
    /// counts them; below that to a tenth, so a 2-second window is never "over 0 seconds".
    public static func spanSeconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0 else { return "0" }
        if value >= 10 { return String(wholeSeconds(value)) }
        return number((value * 10 + 1e-6).rounded(.down) / 10)
    }

    /// 80 → `80`, 12.5 → `12.5`, 0.30000000000000004 → `0.3`: at most three decimals, so
    /// binary fractions never show.
    public static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return String(value) }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        return String(rounded)
    }

    private static func utcFormatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        return formatter
    }

    static func stamp(_ date: Date) -> String { utcFormatter("yyyy-MM-dd-HHmmss").string(from: date) }
    static func displayDate(_ date: Date) -> String { utcFormatter("yyyy-MM-dd HH:mm:ss.SSS Z").string(from: date) }
    static func isoDate(_ date: Date) -> String { utcFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").string(from: date) }
    static func parseISODate(_ text: String) -> Date? {
        utcFormatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").date(from: text) ?? utcFormatter("yyyy-MM-dd'T'HH:mm:ss'Z'").date(from: text)
    }

    // MARK: text

    /// The report as text, Apple crash-report style.
    public var text: String {
        var lines: [String] = []
        func field(_ name: String, _ value: String) {
            let label = name + ":"
            lines.append(label.padding(toLength: max(label.count + 1, 21), withPad: " ", startingAt: 0) + value)
        }
        field("Incident Identifier", incidentIdentifier)
        field("Process", "\(processName) [\(pid)]")
        field("Path", path ?? "unknown")
        if let commandLine, !commandLine.isEmpty { field("Command Line", commandLine.joined(separator: " ")) }
        field("Parent", "\(parentName ?? "unknown") [\(parentPid)]")
        field("User", uid.map { "\(userName ?? "unknown") (\($0))" } ?? "unknown")
        if let cgroup { field("Cgroup", cgroup) }
        field("Date/Time", Self.displayDate(timestamp))
        field("OS Version", osVersion ?? "unknown")
        field("Hardware Model", hardwareModel ?? "unknown")
        lines.append("")
        field("Exception Type", exceptionType)
        field("Exception Subtype", exceptionSubtype)
        field("Exception Message", exceptionMessage)
        if let exceptionNote { field("Exception Note", exceptionNote) }
        field("Termination Reason", terminationReason ?? "none (process not terminated)")
        field("Action Taken", actionTaken)
        lines.append("")
        field("CPU", cpuSummary)
        field("CPU Limit", "\(Self.number(limitPercent))% of one core (\(Self.number(limitPercent / 100 * windowSeconds)) seconds of cpu time)")
        field("Limit Duration", "\(Self.number(windowSeconds)) seconds")
        field("CPU Used", String(format: "%.2f seconds", cpuSeconds))
        field("CPU Duration", String(format: "%.2f seconds", observedSeconds))
        lines.append("")
        lines.append("Threads (cpu time within the window):")
        for (index, thread) in threads.enumerated() {
            let marker = thread.heaviest ? " Heaviest" : ""
            let cpu = thread.cpuSeconds.map { String(format: "%.2f s cpu", $0) } ?? "cpu unknown"
            lines.append("Thread \(index)\(marker):: \(thread.name)  tid \(thread.tid)  \(thread.state)  \(cpu)  wchan \(thread.wchan ?? "-")")
            if let stack = thread.kernelStack {
                if stack.isEmpty { lines.append("    (no kernel frames: running in user space)") }
                for (depth, frame) in stack.enumerated() { lines.append("    \(depth)  \(frame)") }
            } else {
                lines.append("    (kernel stack unreadable)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: JSON

    /// The JSON sidecar, keys in the documented order.
    public var json: JSONValue {
        .object([
            "incidentIdentifier": .string(incidentIdentifier),
            "timestamp": .string(Self.isoDate(timestamp)),
            "processName": .string(processName),
            "pid": .int(Int(pid)),
            "processStartTimeTicks": .int(Int(clamping: processStartTimeTicks)),
            "path": .from(path),
            "commandLine": commandLine.map { .array($0.map(JSONValue.string)) } ?? .null,
            "parentName": .from(parentName),
            "parentPid": .int(Int(parentPid)),
            "uid": .from(uid.map(Int.init)),
            "userName": .from(userName),
            "cgroup": .from(cgroup),
            "osVersion": .from(osVersion),
            "hardwareModel": .from(hardwareModel),
            "exceptionType": .string(exceptionType),
            "exceptionSubtype": .string(exceptionSubtype),
            "exceptionMessage": .string(exceptionMessage),
            "exceptionNote": .from(exceptionNote),
            "cpuSummary": .string(cpuSummary),
            "fatal": .bool(fatal),
            "limitPercent": .from(limitPercent),
            "windowSeconds": .from(windowSeconds),
            "cpuSeconds": .from(cpuSeconds, places: 2),
            "observedSeconds": .from(observedSeconds, places: 3),
            "observedPercent": .int(observedPercent),
            "action": .string(action),
            "dryRun": .bool(dryRun),
            "actionTaken": .string(actionTaken),
            "terminationReason": .from(terminationReason),
            "threads": .array(threads.map(\.json)),
        ])
    }

    /// Reads a sidecar back (what `json` wrote); the error names the first bad field.
    public init(json: JSONValue) throws(ReportDecodingError) {
        guard case .object = json else { throw ReportDecodingError(field: "(root)", problem: "expected an object") }
        func field(_ key: String) throws(ReportDecodingError) -> JSONValue {
            guard let value = json[key] else { throw ReportDecodingError(field: key, problem: "missing") }
            return value
        }
        func string(_ key: String) throws(ReportDecodingError) -> String {
            guard let text = try field(key).stringValue else { throw ReportDecodingError(field: key, problem: "expected a string") }
            return text
        }
        func optionalString(_ key: String) throws(ReportDecodingError) -> String? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw ReportDecodingError(field: key, problem: "expected a string or null") }
            return text
        }
        func integer<T: FixedWidthInteger>(_ key: String, _ type: T.Type) throws(ReportDecodingError) -> T {
            guard let int = try field(key).intValue, let value = T(exactly: int) else {
                throw ReportDecodingError(field: key, problem: "expected an integer within \(T.self)")
            }
            return value
        }
        func optionalInteger<T: FixedWidthInteger>(_ key: String, _ type: T.Type) throws(ReportDecodingError) -> T? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let int = value.intValue, let result = T(exactly: int) else {
                throw ReportDecodingError(field: key, problem: "expected an integer within \(T.self) or null")
            }
            return result
        }
        func number(_ key: String) throws(ReportDecodingError) -> Double {
            guard let value = try field(key).doubleValue else { throw ReportDecodingError(field: key, problem: "expected a number") }
            return value
        }
        func bool(_ key: String) throws(ReportDecodingError) -> Bool {
            guard let value = try field(key).boolValue else { throw ReportDecodingError(field: key, problem: "expected true or false") }
            return value
        }
        func strings(_ value: JSONValue?, _ key: String) throws(ReportDecodingError) -> [String]? {
            guard let value, !value.isNull else { return nil }
            guard let items = value.arrayValue else { throw ReportDecodingError(field: key, problem: "expected a list of strings") }
            var result: [String] = []
            for item in items {
                guard let text = item.stringValue else { throw ReportDecodingError(field: key, problem: "expected a list of strings") }
                result.append(text)
            }
            return result
        }
        incidentIdentifier = try string("incidentIdentifier")
        let stamp = try string("timestamp")
        guard let date = Self.parseISODate(stamp) else {
            throw ReportDecodingError(field: "timestamp", problem: "not an ISO 8601 UTC time: \(stamp)")
        }
        timestamp = date
        processName = try string("processName")
        pid = try integer("pid", Int32.self)
        processStartTimeTicks = try integer("processStartTimeTicks", UInt64.self)
        path = try optionalString("path")
        commandLine = try strings(json["commandLine"], "commandLine")
        parentName = try optionalString("parentName")
        parentPid = try integer("parentPid", Int32.self)
        uid = try optionalInteger("uid", UInt32.self)
        userName = try optionalString("userName")
        cgroup = try optionalString("cgroup")
        osVersion = try optionalString("osVersion")
        hardwareModel = try optionalString("hardwareModel")
        fatal = try bool("fatal")
        limitPercent = try number("limitPercent")
        windowSeconds = try number("windowSeconds")
        cpuSeconds = try number("cpuSeconds")
        observedSeconds = try number("observedSeconds")
        action = try string("action")
        dryRun = try bool("dryRun")
        actionTaken = try string("actionTaken")
        terminationReason = try optionalString("terminationReason")
        guard let threadItems = try field("threads").arrayValue else {
            throw ReportDecodingError(field: "threads", problem: "expected a list")
        }
        var threads: [ReportThread] = []
        for (index, item) in threadItems.enumerated() {
            let key = "threads[\(index)]"
            guard let tid = item["tid"]?.intValue.flatMap(Int32.init(exactly:)), let name = item["name"]?.stringValue,
                  let state = item["state"]?.stringValue, let heaviest = item["heaviest"]?.boolValue
            else { throw ReportDecodingError(field: key, problem: "needs tid, name, state and heaviest") }
            let cpu = item["cpuSeconds"].flatMap { $0.isNull ? nil : $0 }
            guard cpu == nil || cpu?.doubleValue != nil else { throw ReportDecodingError(field: key + ".cpuSeconds", problem: "expected a number or null") }
            let wchan = item["wchan"].flatMap { $0.isNull ? nil : $0 }
            guard wchan == nil || wchan?.stringValue != nil else { throw ReportDecodingError(field: key + ".wchan", problem: "expected a string or null") }
            threads.append(ReportThread(
                tid: tid, name: name, state: state, cpuSeconds: cpu?.doubleValue, wchan: wchan?.stringValue,
                kernelStack: try strings(item["kernelStack"], key + ".kernelStack"), heaviest: heaviest))
        }
        self.threads = threads
    }
}

/// Why a report sidecar could not be read back.
public struct ReportDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var problem: String

    public var description: String { "\(field): \(problem)" }
}
