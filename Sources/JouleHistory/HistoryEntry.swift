import Foundation
import JouleHardware
import JouleWorkloads

/// A marker on the history's timeline: a resource report (read from the reports directory when
/// the history is read) or a deferred transfer that finished (stored by the daemon when it did).
package struct HistoryEntry: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        case report, transfer
    }

    package var timestamp: Double
    package var kind: Kind
    /// The report's incident identifier, or the transfer's id.
    package var id: String
    /// A report's `CPU_FATAL` or `CPU`; a transfer's final state: `completed`, `failed` or `cancelled`.
    package var subtype: String
    /// The report's process name, or the transfer's file (a download's destination, an upload's source).
    package var subject: String
    /// The report's exception message, or a failed transfer's reason.
    package var detail: String?
    /// The report's process id.
    package var pid: Int?
    /// The bytes a transfer moved.
    package var bytes: Int64?
    /// The transfer's owner: other users do not see it (`HistoryStore.read(visibleTo:)`).
    package var ownerUID: UInt32?

    package init(
        timestamp: Double, kind: Kind, id: String, subtype: String, subject: String, detail: String? = nil,
        pid: Int? = nil, bytes: Int64? = nil, ownerUID: UInt32? = nil
    ) {
        self.timestamp = timestamp
        self.kind = kind
        self.id = id
        self.subtype = subtype
        self.subject = subject
        self.detail = detail
        self.pid = pid
        self.bytes = bytes
        self.ownerUID = ownerUID
    }

    /// A resource report as a marker.
    package init(report: ResourceReport) {
        self.init(
            timestamp: report.timestamp.timeIntervalSince1970, kind: .report, id: report.incidentIdentifier,
            subtype: report.exceptionSubtype, subject: report.processName, detail: report.exceptionMessage,
            pid: Int(report.pid))
    }

    /// Every report in `store` as a marker, and the files that could not be read.
    package static func reports(in store: ReportStore) -> (entries: [HistoryEntry], problems: [String]) {
        do {
            let listing = try store.list()
            return (listing.reports.map { HistoryEntry(report: $0.report) }, listing.skipped)
        } catch {
            return ([], ["\(store.directory): \(error)"])
        }
    }

    /// A short label for a chart: `CPU_FATAL cc1plus [4242]`, `download completed: a.iso`.
    package var label: String {
        switch kind {
        case .report: return "\(subtype) \(subject)" + (pid.map { " [\($0)]" } ?? "")
        case .transfer:
            let file = subject.split(separator: "/").last.map(String.init) ?? subject
            return "transfer \(subtype): \(file)"
        }
    }
}
