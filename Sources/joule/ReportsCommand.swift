import ArgumentParser
import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

/// `joule reports`: the resource reports the CPU monitor left, like Xcode's Energy organizer.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "List and show resource reports (what ran away, when, how badly, what was done).",
        subcommands: [List.self, Show.self])

    struct Location: ParsableArguments {
        @Option(parsing: .unconditional, help: ArgumentHelp("Reports directory (default: $JOULE_STATE_DIR/reports).", valueName: "dir"))
        var reports: String?

        /// The store named by --reports, else the state directory's; exits 1 without either.
        func store() throws -> ReportStore {
            // A named directory that is missing is an empty store; a file in its place is a mistake.
            if let reports, FileSystem.kind(of: reports) != nil {
                try UserPath.directory(reports, option: "--reports", command: "reports")
            }
            guard let directory = reports ?? ReportStore.defaultDirectory() else {
                throw JouleExit.system(StateDirectory.missingMessage, command: "reports")
            }
            return ReportStore(directory: directory)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List reports, newest first.")

        @OptionGroup var location: Location

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() throws {
            let store = try location.store()
            let listing: (reports: [StoredReport], skipped: [String])
            do {
                listing = try store.list()
            } catch {
                // A directory the user named that cannot be read is their input.
                throw location.reports == nil
                    ? JouleExit.system("\(error)", command: "reports") : JouleExit.input("\(error)", command: "reports")
            }
            for skipped in listing.skipped { Console.error("joule reports: skipped \(skipped)") }
            if json {
                Console.out(JSONValue.array(listing.reports.map(Self.summary)).serialized)
                return
            }
            if listing.reports.isEmpty {
                let skipped = listing.skipped.count
                Console.out(skipped == 0
                    ? "No reports in \(store.directory)."
                    : "No readable reports in \(store.directory) (\(skipped) skipped, named above).")
                return
            }
            let rows = listing.reports.map { stored -> [String] in
                let report = stored.report
                return [
                    String(report.incidentIdentifier.prefix(8)),
                    ClockTime.dateTime(report.timestamp.timeIntervalSince1970),
                    "\(report.processName) [\(report.pid)]",
                    report.exceptionSubtype,
                    "\(report.observedPercent)% over \(ResourceReport.spanSeconds(report.observedSeconds)) s (limit \(ReportsCommand.number(report.limitPercent))% over \(ReportsCommand.number(report.windowSeconds)) s)",
                    report.dryRun ? "dry run" : report.action,
                ]
            }
            let header = ["ID", "DATE", "PROCESS", "SUBTYPE", "OBSERVED", "ACTION"]
            let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            for row in [header] + rows {
                Console.out(row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  "))
            }
        }

        /// One list entry: the what, when and how bad of a report, and its files.
        static func summary(_ stored: StoredReport) -> JSONValue {
            let report = stored.report
            guard case .object(var object) = report.json else { return .null }
            let keep: Set<String> = [
                "incidentIdentifier", "timestamp", "processName", "pid", "exceptionSubtype", "exceptionMessage",
                "cpuSeconds", "observedSeconds", "observedPercent", "limitPercent", "windowSeconds", "action",
                "dryRun", "actionTaken",
            ]
            var summary = JSONObject()
            for (key, value) in object.entries where keep.contains(key) { summary[key] = value }
            summary["textPath"] = .string(stored.textPath)
            summary["jsonPath"] = .string(stored.jsonPath)
            object = summary
            return .object(object)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one report by incident identifier (or a unique prefix).")

        @Argument(help: "Incident identifier, a unique prefix of it, or the report's file name.")
        var id: String

        @OptionGroup var location: Location

        @Flag(help: "Print the JSON sidecar instead of the text.")
        var json = false

        func run() throws {
            let stored: StoredReport
            let store = try location.store()
            do throws(ReportStoreError) {
                stored = try store.find(id)
            } catch {
                // An id that names no report (or several) is the user's input; a directory that
                // cannot be read is the system's.
                if case .io = error { throw JouleExit.system("\(error)", command: "reports") }
                throw JouleExit.input("\(error)", command: "reports")
            }
            if json {
                Console.out(stored.report.json.serialized)
                return
            }
            let text = (try? FileSystem.readText(stored.textPath)) ?? stored.report.text
            Console.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        }
    }

    static func number(_ value: Double) -> String { ResourceReport.number(value) }
}
