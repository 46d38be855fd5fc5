import Foundation
import Testing

@testable import JouleHardware

/// `mem_sleep`, `pm_wakeup_irq`, `suspend_stats` and `/sys/class/wakeup`: the decoders, a
/// fixture tree before and after a sleep, and files that are garbage or fail to read.
@Suite struct SleepStateTests {
    /// A throwaway tree under the temporary directory, removed when the test ends.
    final class Tree {
        let path: String
        var root: FileRoot { FileRoot(path) }

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-sleep-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func write(_ relative: String, _ text: String) throws {
            let url = URL(fileURLWithPath: path + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }

        func source(_ id: String, name: String, events: String, wakeups: String) throws {
            try write("/sys/class/wakeup/\(id)/name", name + "\n")
            try write("/sys/class/wakeup/\(id)/event_count", events + "\n")
            try write("/sys/class/wakeup/\(id)/wakeup_count", wakeups + "\n")
        }

        /// A laptop before sleep: deep sleep, the lid, the power button and an RTC.
        static func laptop() throws -> Tree {
            let tree = try Tree()
            try tree.write("/sys/power/mem_sleep", "s2idle [deep]\n")
            try tree.write("/sys/power/suspend_stats/success", "12\n")
            try tree.write("/sys/power/suspend_stats/fail", "1\n")
            try tree.write("/sys/power/suspend_stats/last_failed_dev", "usb1\n")
            try tree.source("wakeup0", name: "PNP0C0C:00", events: "3", wakeups: "0")
            try tree.source("wakeup2", name: "ACPI LID0", events: "40", wakeups: "7")
            try tree.source("wakeup10", name: "alarmtimer.0.auto", events: "5", wakeups: "0")
            return tree
        }
    }

    @Test(arguments: [("s2idle [deep]", "deep"), ("[s2idle]", "s2idle"), ("[s2idle] shallow deep\n", "s2idle"), ("s2idle shallow [deep]", "deep")])
    func theBracketedModeIsTheCurrentOne(_ text: String, _ mode: String) {
        #expect(SleepState.memSleepMode(text) == mode)
    }

    @Test(arguments: ["", "s2idle deep", "[s2idle] [deep]", "[]", "[deep", "s2idle [de ep]", "[de;ep]", "garbage [deep] {x}"])
    func noSingleBracketedModeIsNil(_ text: String) {
        #expect(SleepState.memSleepMode(text) == nil)
    }

    @Test func countsArePlainDecimalsOnly() {
        #expect(SleepState.count("0") == 0)
        #expect(SleepState.count("18446744073709551615") == UInt64.max)
        for bad in ["", "-1", "+1", "1.5", "0x10", "１", "184467440737095516150", "12 3"] {
            #expect(SleepState.count(bad) == nil, "\(bad)")
        }
    }

    @Test func theFixtureBeforeSleep() throws {
        let tree = try Tree.laptop()
        let reader = SleepStateReader(root: tree.root)
        #expect(reader.memSleepMode().mode == "deep" && reader.memSleepMode().problem == nil)
        let snapshot = reader.snapshot()
        #expect(snapshot.problems == [])
        #expect(snapshot.wakeupIRQ == nil)
        #expect(snapshot.suspendStats == ["success": 12, "fail": 1])
        #expect(snapshot.sources.map(\.id) == ["wakeup0", "wakeup2", "wakeup10"])
        #expect(snapshot.sources[1] == WakeupSource(id: "wakeup2", name: "ACPI LID0", eventCount: 40, wakeupCount: 7))
    }

    @Test func theLidOpeningIsTheWakeReason() throws {
        let tree = try Tree.laptop()
        let reader = SleepStateReader(root: tree.root)
        let before = reader.snapshot()
        try tree.source("wakeup2", name: "ACPI LID0", events: "42", wakeups: "8")
        try tree.source("wakeup10", name: "alarmtimer.0.auto", events: "6", wakeups: "0")
        try tree.write("/sys/power/pm_wakeup_irq", "9\n")
        try tree.write("/sys/power/suspend_stats/success", "13\n")
        let after = reader.snapshot()
        #expect(after.wakeupIRQ == 9 && after.suspendStats["success"] == 13)
        #expect(SleepState.wakeReason(before: before, after: after) == "ACPI LID0 (wakeup_count +1)")
    }

    @Test func withoutAWakeupCountTheEventsThenTheIRQTell() throws {
        let tree = try Tree.laptop()
        let reader = SleepStateReader(root: tree.root)
        let before = reader.snapshot()
        try tree.source("wakeup10", name: "alarmtimer.0.auto", events: "6", wakeups: "0")
        try tree.source("wakeup0", name: "PNP0C0C:00", events: "5", wakeups: "0")
        #expect(SleepState.wakeReason(before: before, after: reader.snapshot()) == "PNP0C0C:00 (event_count +2), alarmtimer.0.auto (event_count +1)")
        let still = reader.snapshot()
        try tree.write("/sys/power/pm_wakeup_irq", "9\n")
        #expect(SleepState.wakeReason(before: still, after: reader.snapshot()) == "irq 9")
        #expect(SleepState.wakeReason(before: still, after: still) == nil)
    }

    @Test func aFailedSuspendSaysSoFirst() throws {
        let tree = try Tree.laptop()
        try tree.write("/sys/power/suspend_stats/fail", "2\n")
        let reader = SleepStateReader(root: tree.root)
        let before = reader.snapshot()
        try tree.write("/sys/power/suspend_stats/fail", "3\n")
        #expect(SleepState.wakeReason(before: before, after: reader.snapshot()) == "suspend failed (suspend_stats/fail +1)")
        try tree.source("wakeup2", name: "ACPI LID0", events: "42", wakeups: "8")
        #expect(SleepState.wakeReason(before: before, after: reader.snapshot()) == "suspend failed (suspend_stats/fail +1), ACPI LID0 (wakeup_count +1)")
    }

    @Test func aSourceThatChangedIdentityIsNoReason() throws {
        let tree = try Tree.laptop()
        let reader = SleepStateReader(root: tree.root)
        let before = reader.snapshot()
        try tree.source("wakeup2", name: "usb 1-2", events: "90", wakeups: "30")
        #expect(SleepState.wakeReason(before: before, after: reader.snapshot()) == nil)
    }

    @Test func garbageIsNilWithANamedProblem() throws {
        let tree = try Tree.laptop()
        try tree.write("/sys/power/mem_sleep", "deep\n")
        try tree.write("/sys/class/wakeup/wakeup2/wakeup_count", "lots\n")
        try tree.write("/sys/power/pm_wakeup_irq", "-1\n")
        let reader = SleepStateReader(root: tree.root)
        let mode = reader.memSleepMode()
        #expect(mode.mode == nil && mode.problem == "\(tree.path)/sys/power/mem_sleep: no bracketed mode: \"deep\"")
        let snapshot = reader.snapshot()
        #expect(snapshot.wakeupIRQ == nil)
        #expect(snapshot.sources[1].wakeupCount == nil && snapshot.sources[1].eventCount == 40)
        #expect(snapshot.problems == [
            "\(tree.path)/sys/power/pm_wakeup_irq: not a count: \"-1\"",
            "\(tree.path)/sys/class/wakeup/wakeup2/wakeup_count: not a count: \"lots\"",
        ])
    }

    @Test func aMachineWithoutTheFilesHasNothingAndNoProblem() throws {
        let tree = try Tree()
        let reader = SleepStateReader(root: tree.root)
        #expect(reader.memSleepMode().mode == nil && reader.memSleepMode().problem == nil)
        #expect(reader.snapshot() == WakeupSnapshot())
    }

    @Test func aFailedReadIsAProblemNotAbsence() throws {
        let tree = try Tree.laptop()
        let reader = SleepStateReader(root: tree.root) { path throws(HardwareError) in
            if path.hasSuffix("/event_count") || path.hasSuffix("/mem_sleep") { throw HardwareError(operation: "read", path: path, errno: .ioError) }
            return try FileSystem.readBytes(path)
        }
        #expect(reader.memSleepMode().mode == nil)
        #expect(reader.memSleepMode().problem?.hasPrefix("\(tree.path)/sys/power/mem_sleep: read failed:") == true)
        let snapshot = reader.snapshot()
        #expect(snapshot.sources.allSatisfy { $0.eventCount == nil })
        #expect(snapshot.problems.count == 3)
    }
}
