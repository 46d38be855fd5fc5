import Testing
@testable import JouleHardware

@Suite struct CPUStatTests {
    static let first = """
        cpu  100 0 50 800 50 0 0 0 20 0
        cpu0 50 0 25 400 25 0 0 0 10 0
        cpu1 50 0 25 400 25 0 0 0 10 0
        intr 12345 0 0
        ctxt 999
        """
    static let second = """
        cpu  200 0 100 850 50 0 0 0 40 0
        cpu0 150 0 50 400 25 0 0 0 30 0
        cpu1 50 0 75 450 25 0 0 0 10 0
        """

    @Test func coresAndUsage() throws {
        let a = try CPUStat.parse(Self.first)
        let b = try CPUStat.parse(Self.second)
        #expect(a.cores == 2)
        // busy 150→300, total 1000→1200: 150/200.
        #expect(b.usagePercent(since: a) == 75)
        let perCore = b.perCoreUsagePercent(since: a)
        #expect(perCore.map(\.index) == [0, 1])
        #expect(perCore.map(\.percent) == [100, 50])
        #expect(a.usagePercent(since: a) == nil)
    }

    @Test func guestIsNotCountedTwice() throws {
        let stat = try CPUStat.parse(Self.first)
        #expect(stat.all.total == 1000)
        #expect(stat.all.busy == 150)
    }

    @Test func countersGoingBackwardsAreNoProgress() {
        let before = CPUTimes(user: 100, nice: 0, system: 0, idle: 100, iowait: 50)
        let after = CPUTimes(user: 110, nice: 0, system: 0, idle: 130, iowait: 10)
        #expect(after.usagePercent(since: before) == nil)
    }

    @Test(arguments: ["", "intr 1 2 3", "cpu 1 2 x 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 3 4 5 6 7 8\ncpuX 1 2 3 4 5 6 7 8"])
    func malformedStatThrowsWithPath(text: String) {
        #expect(throws: HardwareError.self) { try CPUStat.parse(text, path: "/fixture/proc/stat") }
        do {
            _ = try CPUStat.parse(text, path: "/fixture/proc/stat")
        } catch {
            #expect(error.path == "/fixture/proc/stat")
            #expect(error.description.hasPrefix("parse /fixture/proc/stat: "))
        }
    }

    /// The Character-splitting parser the byte scan replaced, as the reference it must agree with.
    static func reference(_ text: String, path: String) -> Result<CPUStat, HardwareError> {
        var all: CPUTimes?
        var cores: [CPUStat.Core] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard line.hasPrefix("cpu") else { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let label = fields.first else { continue }
            let values = fields.dropFirst().compactMap { UInt64($0) }
            guard values.count == fields.count - 1, values.count >= 8 else {
                return .failure(HardwareError(operation: "parse", path: path, detail: "line \(number + 1): malformed \(label) counters"))
            }
            let times = CPUTimes(
                user: values[0], nice: values[1], system: values[2], idle: values[3], iowait: values[4],
                irq: values[5], softirq: values[6], steal: values[7])
            if label == "cpu" {
                all = times
            } else if let index = Int(label.dropFirst(3)), index >= 0 {
                guard !cores.contains(where: { $0.index == index }) else {
                    return .failure(HardwareError(operation: "parse", path: path, detail: "line \(number + 1): duplicate \(label) line"))
                }
                cores.append(CPUStat.Core(index: index, times: times))
            } else {
                return .failure(HardwareError(operation: "parse", path: path, detail: "line \(number + 1): unknown label \(label)"))
            }
        }
        guard let all else { return .failure(HardwareError(operation: "parse", path: path, detail: "no aggregate cpu line")) }
        return .success(CPUStat(all: all, perCore: cores))
    }

    @Test func theByteScanAgreesWithTheTextParserOnGarbledStats() {
        // Unsigned decimal counters only: the text parser's UInt64("+1") took a sign no kernel writes.
        let pieces = [
            "cpu", "cpu0", "cpu1", "cpu12", "cpux", "cpu-1", " ", "  ", "\n", "\n", "1", "0", "42", "1 2 3 4 5 6 7 8",
            " 9 9 9 9 9 9 9 9 9 9", "18446744073709551615", "18446744073709551616", "intr", "x", "\t", "99999", "ctxt 7",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var agreed = 0, parsed = 0
        for _ in 0..<20_000 {
            var text = next(3) == 0 ? "cpu 1 2 3 4 5 6 7 8 9 10\n" : ""
            for _ in 0..<(1 + next(24)) { text += pieces[next(pieces.count)] }
            let expected = Self.reference(text, path: "/p")
            let actual = Result { () throws(HardwareError) in try CPUStat.parse(text, path: "/p") }
            switch (expected, actual) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(text.debugDescription)")
                parsed += 1
            case (.failure(let a), .failure(let b)):
                #expect(a.description == b.description, "\(text.debugDescription)")
            default:
                Issue.record("\(text.debugDescription): text \(expected), bytes \(actual)")
            }
            agreed += 1
        }
        #expect(parsed > 500, "the generator reaches valid stats too")
        #expect(agreed == 20_000)
    }

    @Test func readerNamesMissingFile() {
        do {
            _ = try CPUStatReader(root: "/nonexistent-root").read()
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "open /nonexistent-root/proc/stat: No such file or directory (ENOENT)")
        }
    }

    @Test func readsLiveProc() throws {
        #expect(try CPUStatReader().read().cores >= 1)
    }
}

/// Found by `make fuzz` (cpustat): a /proc/stat with two cpu0 lines paired each against the
/// first one of the earlier sample, so the second got a usage computed from another line.
@Suite struct CPUStatDuplicateCoreTests {
    @Test func duplicateCoreLineIsAnError() {
        let text = """
            cpu  620625 1935 249165 0 3675 0 0 0
            cpu0 100000 320 41000 240 5113 0 611 0 0 0
            cpu2 10275 2400977 5113 0 611 0 0 0
            cpu0 322 41422 240145 1 2 3 4 5 9 10
            """
        #expect(throws: HardwareError.self) { try CPUStat.parse(text) }
    }
}
