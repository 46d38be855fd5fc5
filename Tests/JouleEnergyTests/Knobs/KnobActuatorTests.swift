import Foundation
import JouleHardware
import JouleEnergy
import JouleTesting
import Testing

/// Applying and restoring knobs on writable fixture trees, with the journal in a runtime
/// directory beside them.
@Suite struct KnobActuatorTests {
    static func actuator(_ tree: KnobTree) -> KnobActuator {
        KnobActuator(root: tree.root, runtimeDirectory: RuntimeDirectory(path: tree.runtimeDirectory))
    }

    static func plan(_ tree: KnobTree, _ configuration: LowPowerKnobConfiguration = .init()) -> [KnobWrite] {
        LowPowerKnobs(configuration: configuration).plan(root: tree.root)
    }

    /// Every sys/ file's value as a knob reads it: a fixture's selection list
    /// (`[default] performance …`) cannot read back its choice the way sysfs does.
    static func values(_ tree: KnobTree) throws -> [String: String] {
        try tree.sysFiles().mapValues(KnobText.current)
    }

    static func states(_ outcomes: [KnobOutcome]) -> [String] { outcomes.map { "\($0.knob) \($0.state)" } }

    static let profile = "sys/firmware/acpi/platform_profile"
    static let noTurbo = "sys/devices/system/cpu/intel_pstate/no_turbo"
    static let governor0 = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
    static let epp0 = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference"

    @Test(arguments: ["intel", "amd", "pi", "capped"])
    func applyThenRestoreReturnsEveryFile(machine: String) throws {
        let tree = try Self.tree(machine)
        let before = try Self.values(tree)
        let actuator = Self.actuator(tree)
        var configuration = LowPowerKnobConfiguration()
        configuration.pcieASPM = true
        configuration.usbAutosuspend = true
        let applied = try actuator.apply(Self.plan(tree, configuration))
        #expect(!applied.isEmpty)
        #expect(applied.allSatisfy { $0.state == .applied })
        #expect(try Self.values(tree) != before)
        let journal = try #require(try KnobJournal(directory: RuntimeDirectory(path: tree.runtimeDirectory)).load())
        #expect(journal.bootID == "6f1c9a52-1c3e-4a8e-9d3b-0b7f1e2a4c11")
        #expect(journal.entries.map(\.path) == applied.map(\.path))

        let restored = try actuator.restore()
        #expect(restored.outcomes.count == applied.count)
        #expect(restored.outcomes.allSatisfy { $0.state == .restored })
        // Reverse order of application: the EPP before the governor it required.
        #expect(restored.outcomes.map(\.path) == applied.map(\.path).reversed())
        #expect(try Self.values(tree) == before)
        #expect(!FileManager.default.fileExists(atPath: tree.runtimeDirectory + "/" + KnobJournal.fileName))
        #expect(try actuator.restore() == .nothing)
    }

    @Test func intelValuesWritten() throws {
        let tree = try KnobTree.intelLaptop()
        let outcomes = try Self.actuator(tree).apply(Self.plan(tree))
        #expect(try tree.read(Self.profile) == "low-power\n")
        #expect(try tree.read(Self.governor0) == "powersave\n")
        #expect(try tree.read(Self.epp0) == "power\n")
        #expect(try tree.read(Self.noTurbo) == "1\n")
        #expect(outcomes.first == KnobOutcome(knob: "platform_profile", path: "/" + Self.profile,
                                              original: "balanced", written: "low-power", state: .applied))
    }

    /// Another tool changed the profile after joule: it is left alone and reported once.
    @Test func foreignWriteIsLeftAlone() throws {
        let tree = try KnobTree.intelLaptop()
        let actuator = Self.actuator(tree)
        _ = try actuator.apply(Self.plan(tree))
        try tree.write(Self.profile, "performance\n")
        let outcomes = try actuator.restore().outcomes
        #expect(outcomes.filter { $0.state == .foreign }.map(\.knob) == ["platform_profile"])
        #expect(outcomes.filter { $0.state == .restored }.count == outcomes.count - 1)
        #expect(try tree.read(Self.profile) == "performance\n")
        #expect(try tree.read(Self.governor0) == "performance\n")
        #expect(try tree.read(Self.noTurbo) == "0\n")
        #expect(try actuator.restore() == .nothing)
    }

    /// A crash: the actuator is dropped without restoring; a new one on the same boot restores
    /// from the journal.
    @Test func restartAfterCrashRestores() throws {
        let tree = try KnobTree.intelLaptop()
        let before = try tree.sysFiles()
        do {
            let crashed = Self.actuator(tree)
            _ = try crashed.apply(Self.plan(tree))
        }
        #expect(try tree.sysFiles() != before)
        let recovery = try Self.actuator(tree).restore()
        #expect(recovery.outcomes.count == 6)
        #expect(recovery.outcomes.allSatisfy { $0.state == .restored })
        #expect(try tree.sysFiles() == before)
    }

    /// `joule daemon --restore`'s entry point: restore from the journal, nothing more.
    @Test func restoreEntryPoint() throws {
        let tree = try KnobTree.cappedBoard()
        let before = try tree.sysFiles()
        _ = try Self.actuator(tree).apply(Self.plan(tree))
        let runtime = RuntimeDirectory(path: tree.runtimeDirectory)
        let recovery = try KnobActuator.restoreFromJournal(root: tree.root, runtimeDirectory: runtime)
        #expect(Self.states(recovery.outcomes) == ["scaling_max_freq restored"])
        #expect(try tree.sysFiles() == before)
        #expect(try KnobActuator.restoreFromJournal(root: tree.root, runtimeDirectory: runtime) == .nothing)
        #expect(throws: HardwareError.self) { try KnobActuator.restoreFromJournal(root: tree.root, runtimeDirectory: nil) }
    }

    /// A journal from another boot is stale: discarded, nothing written.
    @Test func journalFromAnotherBootIsDiscarded() throws {
        let tree = try KnobTree.intelLaptop()
        let actuator = Self.actuator(tree)
        _ = try actuator.apply(Self.plan(tree))
        try tree.write("proc/sys/kernel/random/boot_id", "0d9e1f44-7a2b-4c61-8e0f-5b3a9c2d7e18\n")
        let applied = try tree.sysFiles()
        #expect(try actuator.restore() == .stale(bootID: "6f1c9a52-1c3e-4a8e-9d3b-0b7f1e2a4c11"))
        #expect(try tree.sysFiles() == applied)
        #expect(try actuator.restore() == .nothing)
    }

    /// The kernel refuses two knobs (a read-only file: EACCES even for root; a directory in
    /// place of the file): those are failed, the others applied, and restore leaves them out.
    @Test func failedKnobsDoNotStopTheOthers() throws {
        let tree = try KnobTree.intelLaptop()
        try tree.link(Self.profile, to: "/proc/sys/kernel/random/boot_id")
        let plan = Self.plan(tree)
        try tree.makeDirectory(Self.noTurbo)
        let actuator = Self.actuator(tree)
        let outcomes = try actuator.apply(plan)
        #expect(outcomes.count == 6)
        let failed = outcomes.filter { $0.state.description.hasPrefix("failed: ") }
        #expect(failed.map(\.knob) == ["platform_profile", "no_turbo"])
        #expect(outcomes.filter { $0.state == .applied }.count == 4)
        #expect(try tree.read(Self.epp0) == "power\n")
        let restored = try actuator.restore().outcomes
        #expect(Self.states(restored) == [
            "energy_performance_preference restored", "scaling_governor restored",
            "energy_performance_preference restored", "scaling_governor restored",
        ])
        #expect(try tree.read(Self.governor0) == "performance\n")
    }

    /// The EACCES case names its errno.
    @Test func refusedWriteNamesErrno() throws {
        let tree = try KnobTree()
        try tree.link("sys/knob", to: "/proc/sys/kernel/random/boot_id")
        let outcomes = try Self.actuator(tree).apply([KnobWrite(knob: "extra", path: "/sys/knob", value: "x")])
        #expect(outcomes.count == 1)
        #expect(outcomes[0].state == .failed("EACCES") || outcomes[0].state == .failed("ENOENT"))
    }

    @Test func knobsTurnedOffAreUntouched() throws {
        let tree = try KnobTree.intelLaptop()
        var configuration = LowPowerKnobConfiguration()
        configuration.platformProfile = false
        configuration.turbo = false
        let outcomes = try Self.actuator(tree).apply(Self.plan(tree, configuration))
        #expect(!outcomes.contains { $0.knob == "platform_profile" || $0.knob == "no_turbo" })
        #expect(try tree.read(Self.profile) == "balanced\n")
        #expect(try tree.read(Self.noTurbo) == "0\n")
        #expect(try tree.read(Self.epp0) == "power\n")
    }

    @Test func extraPairsAppliedAndRestored() throws {
        let tree = try KnobTree.raspberryPi()
        try tree.write("sys/class/leds/led0/brightness", "255\n")
        let before = try tree.sysFiles()
        let actuator = Self.actuator(tree)
        let configuration = LowPowerKnobConfiguration(extra: [ExtraKnob(path: "/sys/class/leds/led0/brightness", value: "0")])
        let outcomes = try actuator.apply(Self.plan(tree, configuration))
        #expect(Self.states(outcomes) == ["scaling_governor applied", "extra applied"])
        #expect(try tree.read("sys/class/leds/led0/brightness") == "0\n")
        #expect(Self.states(try actuator.restore().outcomes) == ["extra restored", "scaling_governor restored"])
        #expect(try tree.sysFiles() == before)
    }

    /// Turning Low Power Mode on twice keeps the first originals: the second apply restores
    /// the journal first.
    @Test func applyTwiceKeepsOriginals() throws {
        let tree = try KnobTree.intelLaptop()
        let before = try tree.sysFiles()
        let actuator = Self.actuator(tree)
        _ = try actuator.setLowPowerMode(true, plan: Self.plan(tree))
        let again = try actuator.setLowPowerMode(true, plan: Self.plan(tree))
        #expect(again.first?.original == "balanced")
        _ = try actuator.setLowPowerMode(false, plan: [])
        #expect(try tree.sysFiles() == before)
    }

    @Test func journalRoundTripAndMalformed() throws {
        let contents = KnobJournal.Contents(bootID: "b", entries: [
            KnobJournal.Entry(knob: "boost", path: "/sys/devices/system/cpu/cpufreq/boost", original: "1", written: "0"),
        ])
        let text = KnobJournal.encode(contents)
        #expect(text == #"{"version":1,"boot_id":"b","knobs":[{"knob":"boost","path":"/sys/devices/system/cpu/cpufreq/boost","original":"1","written":"0"}]}"#)
        #expect(try KnobJournal.decode(text, path: "j") == contents)
        #expect(throws: HardwareError.self) { try KnobJournal.decode("{\"version\":1}", path: "j") }
        #expect(throws: HardwareError.self) { try KnobJournal.decode("[", path: "j") }
        #expect(throws: HardwareError.self) {
            try KnobJournal.decode(#"{"version":1,"knobs":[{"knob":"x","path":"/sys/../etc/x","original":"1","written":"0"}]}"#, path: "j")
        }
        #expect(throws: HardwareError.self) {
            try KnobJournal.decode(#"{"version":1,"knobs":[{"knob":"x","path":"relative","original":"1","written":"0"}]}"#, path: "j")
        }
    }

    static func tree(_ machine: String) throws -> KnobTree {
        switch machine {
        case "intel": try KnobTree.intelLaptop()
        case "amd": try KnobTree.amdLaptop()
        case "pi": try KnobTree.raspberryPi()
        default: try KnobTree.cappedBoard()
        }
    }
}
