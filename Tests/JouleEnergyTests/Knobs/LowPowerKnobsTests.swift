import JouleHardware
import JouleEnergy
import JouleTesting
import Testing

/// The planner: which knobs, which values, from what each machine offers.
@Suite struct LowPowerKnobsTests {
    static let policy0 = "/sys/devices/system/cpu/cpufreq/policy0/"
    static let policy1 = "/sys/devices/system/cpu/cpufreq/policy1/"

    static func plan(_ tree: KnobTree, _ configuration: LowPowerKnobConfiguration = .init()) -> [String] {
        LowPowerKnobs(configuration: configuration).plan(root: tree.root).map { "\($0.knob) \($0.path)=\($0.value)" }
    }

    /// intel_pstate: the platform profile, then per policy the governor before the EPP it
    /// needs, then no_turbo.
    @Test func intelLaptop() throws {
        #expect(Self.plan(try KnobTree.intelLaptop()) == [
            "platform_profile /sys/firmware/acpi/platform_profile=low-power",
            "scaling_governor \(Self.policy0)scaling_governor=powersave",
            "energy_performance_preference \(Self.policy0)energy_performance_preference=power",
            "scaling_governor \(Self.policy1)scaling_governor=powersave",
            "energy_performance_preference \(Self.policy1)energy_performance_preference=power",
            "no_turbo /sys/devices/system/cpu/intel_pstate/no_turbo=1",
        ])
    }

    /// amd-pstate-epp under powersave: no governor switch, `quiet` as the first offered
    /// profile, the global boost; ASPM and USB stay off unless configured.
    @Test func amdLaptop() throws {
        let tree = try KnobTree.amdLaptop()
        let expected = [
            "platform_profile /sys/firmware/acpi/platform_profile=quiet",
            "energy_performance_preference \(Self.policy0)energy_performance_preference=power",
            "energy_performance_preference \(Self.policy1)energy_performance_preference=power",
            "boost /sys/devices/system/cpu/cpufreq/boost=0",
        ]
        #expect(Self.plan(tree) == expected)
        var peripherals = LowPowerKnobConfiguration()
        peripherals.pcieASPM = true
        peripherals.usbAutosuspend = true
        #expect(Self.plan(tree, peripherals) == expected + [
            "pcie_aspm /sys/module/pcie_aspm/parameters/policy=powersupersave",
            "usb_autosuspend /sys/bus/usb/devices/1-1/power/control=auto",
        ])
    }

    @Test func perPolicyBoostWithoutGlobalBoost() {
        let inventory = PowerKnobInventory(policies: [
            CPUFreqPolicy(name: "policy0", directory: "/p0", governor: "schedutil",
                          availableGovernors: ["ondemand", "schedutil"], hasBoost: true,
                          cpuinfoMinKHz: 100, cpuinfoMaxKHz: 1000, scalingMaxKHz: 1000),
        ])
        #expect(LowPowerKnobs().plan(inventory) == [
            KnobWrite(knob: "boost", path: "/p0/boost", value: "0"),
            KnobWrite(knob: "scaling_max_freq", path: "/p0/scaling_max_freq", value: "600"),
        ])
    }

    @Test func raspberryPiGetsConservative() throws {
        #expect(Self.plan(try KnobTree.raspberryPi()) == ["scaling_governor \(Self.policy0)scaling_governor=conservative"])
    }

    /// The cpufreq policies of the fixture machines (scripts/make-fixtures.py): the Pi's
    /// cpufreq-dt offers conservative, the Ryzen desktop's acpi-cpufreq a global boost and
    /// conservative on each thread, the ZBook's intel_pstate EPP under powersave, and the
    /// Chromebook's clusters neither, so their maximum frequency is capped to 60 %.
    @Test func fixtureMachines() throws {
        func plan(_ machine: String) -> [String] {
            let root = FileRoot(PackageRoot.url.appendingPathComponent("hw-fixtures/\(machine)").path)
            return LowPowerKnobs().plan(root: root).map { "\($0.knob) \($0.path)=\($0.value)" }
        }
        func policy(_ index: Int) -> String { "/sys/devices/system/cpu/cpufreq/policy\(index)/" }
        #expect(plan("raspberry-pi-4-no-battery") == ["scaling_governor \(Self.policy0)scaling_governor=conservative"])
        #expect(plan("desktop-ups-on-battery") == ["boost /sys/devices/system/cpu/cpufreq/boost=0"]
            + (0..<12).map { "scaling_governor \(policy($0))scaling_governor=conservative" })
        #expect(plan("hp-zbook-overheated-fan-active") == (0..<12).map {
            "energy_performance_preference \(policy($0))energy_performance_preference=power"
        } + ["no_turbo /sys/devices/system/cpu/intel_pstate/no_turbo=1"])
        #expect(plan("chromebook-broken-sensors") == [
            "scaling_max_freq \(policy(0))scaling_max_freq=849600", "scaling_max_freq \(policy(4))scaling_max_freq=1080000",
        ])
    }

    /// Without EPP or conservative: 60 % of 1.8 GHz, never below cpuinfo_min_freq, and never
    /// raising a lower limit.
    @Test func frequencyCap() throws {
        #expect(Self.plan(try KnobTree.cappedBoard()) == ["scaling_max_freq \(Self.policy0)scaling_max_freq=1080000"])
        let high = CPUFreqPolicy(name: "policy0", directory: "/p", cpuinfoMinKHz: 1_200_000, cpuinfoMaxKHz: 1_800_000)
        #expect(LowPowerKnobs.frequencyCap(high, percent: 60) == 1_200_000)
        var low = high
        low.scalingMaxKHz = 1_000_000
        #expect(LowPowerKnobs.frequencyCap(low, percent: 60) == nil)
        #expect(LowPowerKnobs.frequencyCap(CPUFreqPolicy(name: "p", directory: "/p"), percent: 60) == nil)
    }

    @Test func knobsTurnedOff() throws {
        let tree = try KnobTree.intelLaptop()
        var configuration = LowPowerKnobConfiguration()
        configuration.platformProfile = false
        configuration.turbo = false
        #expect(Self.plan(tree, configuration).count == 4)
        #expect(Self.plan(tree, .none).isEmpty)
        #expect(Self.plan(try KnobTree.raspberryPi(), .init(conservativeGovernor: false)).isEmpty)
        #expect(Self.plan(try KnobTree.cappedBoard(), .init(maxFrequencyCap: false)).isEmpty)
    }

    /// Extra pairs come last, and replace a built-in knob on the same file.
    @Test func extraPairs() throws {
        let tree = try KnobTree.raspberryPi()
        let configuration = LowPowerKnobConfiguration(extra: [
            ExtraKnob(path: "/sys/class/leds/led0/brightness", value: "0"),
            ExtraKnob(path: Self.policy0 + "scaling_governor", value: "powersave"),
        ])
        #expect(Self.plan(tree, configuration) == [
            "extra /sys/class/leds/led0/brightness=0",
            "extra \(Self.policy0)scaling_governor=powersave",
        ])
    }

    @Test func outcomeJSON() {
        let outcome = KnobOutcome(knob: "no_turbo", path: "/sys/devices/system/cpu/intel_pstate/no_turbo",
                                  original: "0", written: "1", state: .failed("EACCES"))
        #expect(outcome.json.serialized
            == #"{"knob":"no_turbo","path":"/sys/devices/system/cpu/intel_pstate/no_turbo","original":"0","written":"1","state":"failed: EACCES"}"#)
        let unread = KnobOutcome(knob: "extra", path: "/x", original: nil, written: "1", state: .applied)
        #expect(unread.json.serialized == #"{"knob":"extra","path":"/x","original":null,"written":"1","state":"applied"}"#)
    }
}
