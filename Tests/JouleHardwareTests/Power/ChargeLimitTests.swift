import JouleHardware
import JouleTesting
import Testing

@Suite struct ChargeLimitTests {
    // MARK: Vendor variants

    @Test func aThinkPadTreeTakesBothThresholdsInPlaceAndReadsThemBack() throws {
        // A writable tree as the knob tests use: real files, written in place through ControlFile.
        let tree = try ProcTree()
        let dir = "sys/class/power_supply/BAT0"
        try tree.write(dir + "/charge_control_start_threshold", "96\n")
        try tree.write(dir + "/charge_control_end_threshold", "100\n")
        try tree.write(dir + "/charge_behaviour", "[auto] inhibit-charge force-discharge\n")
        let files = SysfsChargeControlFiles(root: FileRoot(tree.path), battery: "BAT0")
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: files)
        // The new end (80) is at or below the current start (96): the start moves first.
        #expect(outcome.writes == ["charge_control_start_threshold=75", "charge_control_end_threshold=80"])
        #expect(outcome.holds && outcome.source == .firmware)
        #expect(try FileSystem.readText(tree.path + "/" + dir + "/charge_control_start_threshold") == "75\n")
        #expect(outcome.held.supported == ["start", "end", "auto", "inhibit-charge", "force-discharge"])
        // Applying it again writes nothing: the values are in place.
        #expect(try ChargeLimitApplier.apply(try .parse("75-80"), to: files).writes.isEmpty)
    }

    @Test func raisingBothThresholdsWritesTheEndFirst() throws {
        let fw = FirmwareChargeControl([.start: "40\n", .end: "50\n"])
        fw.checksOrder = true
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: fw)
        #expect(fw.writes == ["charge_control_end_threshold=80", "charge_control_start_threshold=75"])
        #expect(outcome.holds)
    }

    @Test func anASUSWithOnlyAnEndTakesTheEndAndEmulatesAStart() throws {
        let fw = FirmwareChargeControl([.end: "100\n"])
        #expect(try ChargeLimitApplier.apply(try .parse("80"), to: fw).source == .firmware)
        #expect(fw.writes == ["charge_control_end_threshold=80"])
        // A start without charge_behaviour cannot be honoured, and nothing is written.
        let bare = FirmwareChargeControl([.end: "100\n"])
        #expect(throws: ChargeLimitError.unsupported(
            battery: "BAT0",
            what: "has no charge_control_start_threshold and no charge_behaviour inhibit-charge to emulate one: give only an end (80)")
        ) { try ChargeLimitApplier.apply(try .parse("75-80"), to: bare) }
        #expect(bare.writes.isEmpty)
        // With inhibit-charge the start is emulated.
        let inhibits = FirmwareChargeControl([.end: "100\n", .behaviour: "[auto] inhibit-charge\n"])
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: inhibits)
        #expect(outcome.source == .emulated && inhibits.writes == ["charge_control_end_threshold=80"])
    }

    @Test func anLGStyleBatteryThatTakesOnly80And100RefusesOthersByName() throws {
        let fw = FirmwareChargeControl([.end: "100\n"])
        fw.acceptedEnds = [80, 100]
        #expect(try ChargeLimitApplier.apply(try .parse("80"), to: fw).holds)
        do {
            _ = try ChargeLimitApplier.apply(try .parse("85"), to: fw)
            Issue.record("85 was accepted")
        } catch {
            #expect(error.description == "/sys/class/power_supply/BAT0/charge_control_end_threshold: the kernel refused '85': Invalid argument (EINVAL)")
            guard case .writeRefused(_, _, _, let held) = error else { return }
            #expect(held.endThreshold == 80)  // what holds is what the battery reads, not what was asked
        }
    }

    @Test func aBatteryThatWantsTheStartBeforeTheEndGetsTheOtherOrderAfterEINVAL() throws {
        let fw = FirmwareChargeControl([.start: "40\n", .end: "50\n"])
        fw.wantsStartFirst = true
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: fw)
        #expect(fw.writes == ["charge_control_start_threshold=75", "charge_control_end_threshold=80"])
        #expect(outcome.holds && outcome.writes == fw.writes)
    }

    @Test func aWriteThatSucceedsButReadsBackUnchangedIsNotReportedAsHolding() throws {
        let fw = FirmwareChargeControl([.start: "96\n", .end: "100\n"])
        fw.ignoresWrites = true
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: fw)
        #expect(!outcome.holds)
        #expect(outcome.mismatches == [
            "/sys/class/power_supply/BAT0/charge_control_start_threshold reads 96 after writing 75",
            "/sys/class/power_supply/BAT0/charge_control_end_threshold reads 100 after writing 80",
        ])
        #expect(outcome.held.endThreshold == 100)
    }

    @Test func aBatteryWithOnlyChargeBehaviourIsEmulatedAndOffReleasesIt() throws {
        let fw = FirmwareChargeControl([.behaviour: "auto [inhibit-charge] force-discharge\n"])
        let outcome = try ChargeLimitApplier.apply(try .parse("75-80"), to: fw)
        #expect(outcome.source == .emulated && fw.writes.isEmpty)
        #expect(outcome.held.supported == ["auto", "inhibit-charge", "force-discharge"])
        // Off must not leave the battery inhibited.
        let off = try ChargeLimitApplier.apply(.off, to: fw)
        #expect(fw.writes == ["charge_behaviour=auto"] && off.holds && off.source == .none)
        // No threshold and no inhibit-charge: no limit is possible, said so.
        let nothing = FirmwareChargeControl([.behaviour: "[auto] force-discharge\n"])
        #expect(throws: ChargeLimitError.self) { try ChargeLimitApplier.apply(try .parse("80"), to: nothing) }
    }

    @Test func offWritesZeroAndOneHundred() throws {
        let fw = FirmwareChargeControl([.start: "75\n", .end: "80\n"])
        fw.checksOrder = true
        #expect(try ChargeLimitApplier.apply(.off, to: fw).holds)
        #expect(fw.writes == ["charge_control_end_threshold=100", "charge_control_start_threshold=0"])
    }

    // MARK: Bad input

    @Test func badRequestsAreRefusedBeforeAnyWrite() {
        #expect(throws: ChargeLimitError.outOfOrder(start: 80, end: 75)) { try ChargeLimitRequest.parse("80-75") }
        #expect(throws: ChargeLimitError.outOfRange(name: "end", value: 101, range: "1-100")) { try ChargeLimitRequest.parse("101") }
        #expect(throws: ChargeLimitError.outOfRange(name: "start", value: -1, range: "0-99")) { try ChargeLimitRequest(start: -1, end: 80) }
        #expect(throws: ChargeLimitError.unparsable("eighty")) { try ChargeLimitRequest.parse("eighty") }
        #expect(throws: ChargeLimitError.unparsable("1-2-3")) { try ChargeLimitRequest.parse("1-2-3") }
        #expect(ChargeLimitError.outOfOrder(start: 80, end: 75).description == "charge limit start (80) must be below its end (75)")
    }

    @Test func garbledSysfsValuesAreUnknownWithAProblemNamingTheFile() {
        let state = ChargeControlState(
            texts: [.start: "abc\n", .end: "180\n", .behaviour: "auto inhibit-charge\n"], location: { "/x/\($0.rawValue)" })
        #expect(state.startThreshold == nil && state.endThreshold == nil && state.behaviour == nil)
        #expect(state.problems == [
            "/x/charge_behaviour: no current choice in 'auto inhibit-charge'",
            "/x/charge_control_end_threshold: not a percentage 0-100: '180'",
            "/x/charge_control_start_threshold: not a percentage 0-100: 'abc'",
        ])
    }

    @Test func eaccesOnWriteIsAnErrorAndNothingIsReportedApplied() {
        let fw = FirmwareChargeControl([.start: "96\n", .end: "100\n"])
        fw.refusal = .permissionDenied
        #expect(throws: ChargeLimitError.self) { try ChargeLimitApplier.apply(try .parse("75-80"), to: fw) }
        #expect(fw.writes.isEmpty)
    }

    // MARK: Emulation

    @Test func emulationInhibitsAtTheEndAndReleasesAtTheStartWithHysteresis() {
        func next(_ percent: Double?, _ current: String) -> String? {
            ChargeBehaviourEmulation.behaviour(percent: percent, start: 75, end: 80, current: current)
        }
        #expect(next(80, "auto") == "inhibit-charge")
        #expect(next(78, "inhibit-charge") == nil)  // between: stays inhibited
        #expect(next(78, "auto") == nil)            // between: keeps charging
        #expect(next(75, "inhibit-charge") == "auto")
        #expect(next(nil, "auto") == nil)           // unknown level: no change
        #expect(next(.nan, "auto") == nil)
    }
}
