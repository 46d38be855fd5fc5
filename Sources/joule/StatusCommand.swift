import ArgumentParser

/// `joule status [--root DIR] [--json]`: one snapshot of power, thermal state and CPU.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show batteries, line power, Low Power Mode, thermal state and CPU usage.",
        discussion: """
            When joule daemon owns org.joule.Energy1 on the session or system bus (and no --root \
            is given), the snapshot is the daemon's (GetStatus): --json prints its object as is, \
            with "source": "daemon", and the table adds why Low Power Mode is on and what it did \
            to the machine. Otherwise joule reads the hardware itself ("source": "direct"): \
            devices from libudev, and CPU usage since the /proc/stat sample the previous status \
            left in the runtime directory when it is 0.1-60 s old, else over a 20 ms sample \
            (null when that holds fewer than 10 ticks); or with --root everything from a \
            fixture tree (ROOT/sys, ROOT/proc).
            Exit status: 0 on success (even when some sensors fail), 1 when the root cannot be read.
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
    }

    func run() async throws {
        try await StatusRequest(root: root, json: json).run()
    }
}

extension String {
    /// Without leading and trailing spaces and newlines (no Foundation in the CLI).
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
