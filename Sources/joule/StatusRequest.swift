import ArgumentParser
import JouleWire
import JouleHardware
import JouleEnergy
import JouleClient

/// What `joule status` was asked for, and doing it. `StatusCommand` fills it from ArgumentParser;
/// `init?(words:)` fills it without: status is the command scripts and bars run every few
/// seconds, and ArgumentParser's parse of even this two-option command cost half of a
/// `status --json --root` (13 M of 26 M instructions, callgrind), nearly all of it the
/// runtime's first protocol-conformance lookups, each a scan of every conformance record in
/// the binary.
struct StatusRequest: Equatable {
    var root: String?
    var json: Bool

    init(root: String?, json: Bool) {
        self.root = root
        self.json = json
    }

    /// The words after `status` when they are only `--json` and `--root DIR` (or `--root=DIR`),
    /// each at most once, with DIR neither empty nor an option; nil for anything else, which
    /// ArgumentParser then parses (help, errors and their messages stay its own).
    init?(words: some Sequence<String>) {
        var root: String?, json = false
        var words = words.makeIterator()
        while let word = words.next() {
            if word == "--json", !json {
                json = true
            } else if root == nil, word == "--root", let value = words.next() {
                root = value
            } else if root == nil, word.hasPrefix("--root=") {
                root = String(word.dropFirst("--root=".count))
            } else {
                return nil
            }
            if let root, root.isEmpty || root.hasPrefix("-") { return nil }
        }
        self.init(root: root, json: json)
    }

    func run() async throws {
        let environment = CurrentProcess.environment()
        let text = try await DaemonClient.withDaemonOrLocal(environment: environment, askingDaemon: root == nil) { daemon in
            do {
                return try await fromDaemon(daemon)
            } catch {
                // The daemon left or answered nonsense: the hardware is still here to read.
                Console.error("joule: joule daemon: \(error); reading the hardware directly")
                return nil
            }
        } local: {
            try fromHardware()
        }
        Console.out(text)
    }

    /// The status read here: the devices under `root`, or the live system's.
    private func fromHardware() throws -> String {
        let devices = try DeviceRoot(root)
        let source = devices.source, procRoot = devices.procRoot
        let cpu = devices.isFixture
            ? CPUUsageProbe.unpaused
            : CPUUsageProbe(memo: RuntimeDirectory.current().map { dir in
                try? dir.create()
                return CPUStatMemo(path: dir.file(CPUUsageProbe.memoName))
            })

        let override = LowPowerCommand.store().map { $0.load() } ?? .auto
        let report: StatusReport
        do {
            report = try StatusReport.collect(source: source, procRoot: procRoot, lowPowerOverride: override, cpu: cpu)
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
        return json ? JSONValue.object(report.json).serialized : StatusTable.render(report)
    }

    /// The daemon's GetStatus, checked by decoding it; the table also needs its properties.
    private func fromDaemon(_ daemon: DaemonClient) async throws -> String {
        let text = try await daemon.status()
        let report = try StatusReport(json: text)
        if json { return text.trimmingWhitespace }
        let state = try await daemon.state()
        return StatusTable.render(report, daemon: .init(state: state, bus: daemon.bus))
    }
}
