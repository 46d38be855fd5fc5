import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleHardware
import JouleEnergy
import JouleHistory
import JouleClient

/// `joule history [--since 24h] [--until T] [--json] [--svg FILE | --html FILE] [--state-dir DIR]`:
/// what joule daemon recorded, as figures, JSON, or a picture.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Battery, power, temperatures, Low Power Mode and thermal state over time, with report and transfer markers.",
        discussion: """
            joule daemon records a row every minute and on each change. Without --state-dir the \
            history comes from the daemon over D-Bus (GetHistory) when it runs, else from \
            history.db (or an older joule's transfers.db) in your state directory, opened read \
            only. Spans (24h, 90m, 7d, 2w) count \
            back from --until, which defaults to now; times may also be Unix seconds or \
            2026-03-10T08:30 (local time unless it ends in Z or +HH:MM); a history younger than \
            --since starts at its first row. Labels are in local time \
            (TZ). Exit status: 0, 1 when there is no history to read, 2 for bad arguments or a \
            --state-dir without a readable history.
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Start: a span back from --until, or a time.", valueName: "time"))
    var since = Spec<HistoryTimeSpec>(argument: "24h")

    @Option(parsing: .unconditional, help: ArgumentHelp("End: a time, or a span back from now (default: now).", valueName: "time"))
    var until: Spec<HistoryTimeSpec>?

    @Flag(help: "Print the rows and markers as one JSON object.")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Write the chart as an SVG file.", valueName: "file"))
    var svg: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write a self-contained HTML page: the chart, the summary and tables.", valueName: "file"))
    var html: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Read DIR/history.db (and DIR/reports) instead of asking the daemon.", valueName: "dir"))
    var stateDir: String?

    func validate() throws {
        try since.check()
        try until?.check()
        if svg != nil && html != nil { throw ValidationError("give --svg or --html, not both") }
        if let stateDir, stateDir.isEmpty { throw ValidationError("--state-dir needs a directory") }
        if let svg, svg.isEmpty { throw ValidationError("--svg needs a file") }
        if let html, html.isEmpty { throw ValidationError("--html needs a file") }
    }

    func run() async throws {
        if let stateDir { try UserPath.directory(stateDir, option: "--state-dir", command: "history") }
        if let svg { try UserPath.outputFile(svg, option: "--svg", command: "history") }
        if let html { try UserPath.outputFile(html, option: "--html", command: "history") }
        let now = WallClock.seconds()
        let end = until?.value?.resolve(relativeTo: now) ?? now
        let start = since.value?.resolve(relativeTo: end) ?? end - 86_400
        guard start < end else {
            Console.error("joule history: --since (\(since.text)) is not before --until (\(until?.text ?? "now"))")
            throw ExitCode(2)
        }
        let timeline: HistoryTimeline
        do {
            if let stateDir {
                timeline = try HistoryReader.read(stateDirectory: StateDirectory(path: stateDir), since: start, until: end)
            } else {
                timeline = try await HistoryReader.read(
                    since: start, until: end, environment: CurrentProcess.environment(), isRoot: CurrentProcess.isRoot,
                    warn: { Console.error("joule history: \($0)") })
            }
        } catch {
            // The history of a directory the user named that is not there or not readable is
            // their input; their own or the daemon's failing is the system's.
            if stateDir != nil, case .store(let failure) = error {
                switch failure {
                case .noFile, .noHistory, .unreadable, .corrupt: throw JouleExit.input("\(error)", command: "history")
                default: break
                }
            }
            throw JouleExit.system("\(error)", command: "history")
        }
        let chart = HistoryChart(timeline: timeline, options: HistoryChart.Options(timeZone: .current))
        if let svg { try write(chart.svg(), to: svg) }
        if let html { try write(HistoryPage(chart: chart).html(), to: html) }
        if json {
            Console.out(timeline.json.serialized)
        } else {
            Console.out(HistorySummary(timeline).text(timeZone: .current))
        }
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try AtomicFile.write(text, to: path)
        } catch {
            Console.error("joule history: cannot write \(path): \(error)")
            throw ExitCode(1)
        }
    }
}
