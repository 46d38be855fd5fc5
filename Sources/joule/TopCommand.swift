import ArgumentParser
import JouleWire
import JouleHardware
import JouleEnergy

/// `joule top [--json] [--interval S] [--count N] [--sort energy|cpu|wakeups] [--by unit]`:
/// Energy Impact per process, like Activity Monitor's Energy tab.
struct TopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "Show each process's CPU, wakeups and power, attributed from RAPL or the battery.",
        discussion: """
            Each interval joule reads the host's power (RAPL through powercap, else the \
            batteries while they discharge, else nothing: "source": "model"), /proc/stat and \
            every process, and gives each process its share of the node's active power by CPU \
            time, as Kepler does: power = system power × node busy share × Δprocess CPU ÷ Δnode \
            busy CPU. Idle power is charged to no process. Where nothing measures power, powerW \
            and energyJ are null and energyImpact (CPU % + 0.02 × wakeups/s) ranks processes. \
            The first sample comes after one interval. In a terminal the view is redrawn in \
            place; otherwise one table follows another. --json prints one line per sample. \
            --root reads a fixture tree (ROOT/sys, ROOT/proc). SIGINT or SIGTERM ends it with \
            status 0; status 1 when /proc cannot be read.
            """)

    enum Grouping: String, ExpressibleByArgument, CaseIterable {
        case unit
    }

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print one JSON line per sample.")
    var json = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds between samples (default: 2).", valueName: "s"))
    var interval: Double = 2

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Stop after N samples (default: until interrupted).", valueName: "n"))
    var count: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Order rows by energy (power, or the score), cpu or wakeups.", valueName: "key"))
    var sort: ProcessEnergy.Order = .energy

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Group processes by their systemd unit.", valueName: "unit"))
    var by: Grouping?

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        guard interval >= 0.05 && interval <= 86_400 else {
            throw ValidationError("--interval must be between 0.05 and 86400 seconds, not \(interval)")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, not \(count)") }
    }

    func run() async throws {
        let devices = try DeviceRoot(root)
        let meter = ProcessEnergyMeter(
            source: devices.source, root: root.map(FileRoot.init) ?? .live, procRoot: devices.procRoot, clock: SystemClock())
        let json = self.json, order = sort, byUnit = by == .unit, interval = self.interval, count = self.count
        let terminal = !json && Console.isTerminal(.standardOutput)
        do {
            try await SignalTrap.cancellingOnSignal {
                try await meter.run(every: .seconds(interval), count: count) { sample in
                    if json {
                        Console.out(JSONValue.object(sample.json(order: order, byUnit: byUnit)).serialized)
                        return
                    }
                    let size = terminal ? Console.terminalSize(.standardOutput) : nil
                    let lines = TopTable.render(
                        sample, order: order, byUnit: byUnit, interval: interval, rows: size.map { $0.rows - 1 }, columns: size?.columns)
                    // Home and clear, then the view, in one write: no flicker of a half-drawn
                    // screen. The view leaves the last row free for the cursor.
                    Console.write((terminal ? "\u{1B}[H\u{1B}[2J" : "") + lines.joined(separator: "\n") + (terminal ? "\n" : "\n\n"), to: .standardOutput)
                }
            }
        } catch let error as HardwareError {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
    }
}

extension ProcessEnergy.Order: ExpressibleByArgument {}
