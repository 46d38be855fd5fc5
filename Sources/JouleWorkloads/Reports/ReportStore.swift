#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleWire
import JouleHardware
import JouleEnergy

/// A directory of resource reports: `STEM.txt` (for people) beside `STEM.json` (for tools),
/// each written atomically, text first, so a listed report always has its text.
public struct ReportStore: Sendable {
    public let directory: String

    public init(directory: String) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
    }

    /// The current user's reports directory (`StateDirectory.reports`); nil without one.
    public static func defaultDirectory() -> String? { StateDirectory.current()?.reports }

    /// Writes both files; returns the text file's path.
    @discardableResult
    public func write(_ report: ResourceReport) throws(ReportStoreError) -> StoredReport {
        let stem = directory + "/" + report.fileStem
        let stored = StoredReport(report: report, textPath: stem + ".txt", jsonPath: stem + ".json")
        do throws(HardwareError) {
            try FileSystem.makeDirectories(directory)
            try AtomicFile.write(report.text, to: stored.textPath)
            try AtomicFile.write(report.json.serialized + "\n", to: stored.jsonPath)
        } catch {
            throw .io(error)
        }
        return stored
    }

    /// Every decodable report, newest first; a missing directory is an empty list. Files
    /// that do not decode are returned in `skipped` with the reason.
    public func list() throws(ReportStoreError) -> (reports: [StoredReport], skipped: [String]) {
        guard FileSystem.kind(of: directory) != nil else { return ([], []) }
        let names: [String]
        do { names = try FileSystem.listDirectory(directory) } catch { throw .io(error) }
        var reports: [StoredReport] = []
        var skipped: [String] = []
        for name in names where name.hasSuffix(".json") {
            let jsonPath = directory + "/" + name
            do {
                let bytes = try FileSystem.readBytes(jsonPath)
                let report = try ResourceReport(json: JSONParser.parse(bytes))
                reports.append(StoredReport(report: report, textPath: String(jsonPath.dropLast(5)) + ".txt", jsonPath: jsonPath))
            } catch {
                skipped.append("\(jsonPath): \(error)")
            }
        }
        reports.sort { ($0.report.timestamp, $0.report.incidentIdentifier) > ($1.report.timestamp, $1.report.incidentIdentifier) }
        return (reports, skipped)
    }

    /// The report whose incident identifier starts with `id` (case-insensitive), or whose
    /// file stem is `id`.
    public func find(_ id: String) throws(ReportStoreError) -> StoredReport {
        let wanted = id.uppercased()
        let all = try list().reports
        let matches = all.filter {
            $0.report.incidentIdentifier.uppercased().hasPrefix(wanted) || $0.report.fileStem == id
                || $0.textPath.hasSuffix("/" + id) || $0.jsonPath.hasSuffix("/" + id)
        }
        guard !wanted.isEmpty, let first = matches.first else { throw .notFound(id: id, directory: directory) }
        guard matches.count == 1 else { throw .ambiguous(id: id, matches: matches.map(\.report.incidentIdentifier)) }
        return first
    }

    /// `80%`, `12.5%`.
    static func percent(_ value: Double) -> String { ResourceReport.number(value) + "%" }
}
