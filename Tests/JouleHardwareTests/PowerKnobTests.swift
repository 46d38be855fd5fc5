import JouleHardware
import JouleTesting
import Testing

@Suite struct PowerKnobTests {
    @Test func knobTextDecodes() {
        #expect(KnobText.current("performance\n") == "performance")
        #expect(KnobText.current("[default] performance powersave\n") == "default")
        #expect(KnobText.current("default performance [powersupersave]") == "powersupersave")
        #expect(KnobText.current("  \n") == "")
        #expect(KnobText.words("low-power balanced  performance\n") == ["low-power", "balanced", "performance"])
        #expect(KnobText.words("[default] performance") == ["default", "performance"])
        #expect(KnobText.integer("1500000\n") == 1_500_000)
        #expect(KnobText.integer("-5") == nil)
        #expect(KnobText.integer("12a") == nil)
        #expect(KnobText.integer("") == nil)
    }

    @Test func inventoryOfIntelLaptop() throws {
        let tree = try KnobTree.intelLaptop()
        let inventory = PowerKnobInventory.read(root: tree.root)
        #expect(inventory.platformProfileChoices == ["low-power", "balanced", "performance"])
        #expect(inventory.hasNoTurbo)
        #expect(!inventory.hasGlobalBoost)
        #expect(inventory.policies.map(\.name) == ["policy0", "policy1"])
        let policy = try #require(inventory.policies.first)
        #expect(policy.directory == "/sys/devices/system/cpu/cpufreq/policy0")
        #expect(policy.governor == "performance")
        #expect(policy.energyPerformancePreference == "performance")
        #expect(policy.availablePreferences.contains("power"))
        #expect(policy.cpuinfoMinKHz == 400_000)
        #expect(policy.cpuinfoMaxKHz == 4_600_000)
        #expect(inventory.aspmPolicies == nil)
        #expect(inventory.usbPowerControls.isEmpty)
    }

    @Test func inventoryOfAMDLaptopAndPi() throws {
        let amdTree = try KnobTree.amdLaptop()
        let amd = PowerKnobInventory.read(root: amdTree.root)
        #expect(amd.hasGlobalBoost)
        #expect(!amd.hasNoTurbo)
        #expect(amd.aspmPolicies == ["default", "performance", "powersave", "powersupersave"])
        #expect(amd.usbPowerControls == ["/sys/bus/usb/devices/1-1/power/control"])
        let piTree = try KnobTree.raspberryPi()
        let pi = PowerKnobInventory.read(root: piTree.root)
        #expect(pi.platformProfileChoices == nil)
        let policy = try #require(pi.policies.first)
        #expect(pi.policies.count == 1)
        #expect(policy.energyPerformancePreference == nil)
        #expect(policy.availableGovernors.contains("conservative"))
    }

    /// The fixture trees' cpufreq policies (scripts/make-fixtures.py), as the kernel lays
    /// them out: ordered by number, not by name; a dangling governor is unknown, not empty.
    @Test func inventoryOfTheFixtureMachines() throws {
        let pi = PowerKnobInventory.read(root: RAPLFixtures.root("raspberry-pi-4-no-battery"))
        #expect(pi.policies.map(\.name) == ["policy0"])
        let piPolicy = try #require(pi.policies.first)
        #expect(piPolicy.governor == "ondemand" && piPolicy.availableGovernors.contains("conservative"))
        #expect(piPolicy.cpuinfoMinKHz == 600_000 && piPolicy.cpuinfoMaxKHz == 1_800_000 && piPolicy.scalingMaxKHz == 1_800_000)
        #expect(piPolicy.energyPerformancePreference == nil && !piPolicy.hasBoost && !pi.hasGlobalBoost && !pi.hasNoTurbo)

        let desktop = PowerKnobInventory.read(root: RAPLFixtures.root(RAPLFixtures.ryzenDesktop))
        #expect(desktop.policies.map(\.name) == (0..<12).map { "policy\($0)" })
        #expect(desktop.hasGlobalBoost && !desktop.hasNoTurbo)
        #expect(desktop.policies.allSatisfy { $0.governor == "schedutil" && $0.cpuinfoMaxKHz == 3_600_000 })

        let zbook = PowerKnobInventory.read(root: RAPLFixtures.root("hp-zbook-overheated-fan-active"))
        #expect(zbook.policies.count == 12 && zbook.hasNoTurbo)
        let zbookPolicy = try #require(zbook.policies.last)
        #expect(zbookPolicy.name == "policy11" && zbookPolicy.energyPerformancePreference == "balance_performance")
        #expect(zbookPolicy.availablePreferences == ["default", "performance", "balance_performance", "balance_power", "power"])
        #expect(zbookPolicy.cpuinfoMaxKHz == 4_300_000 && zbookPolicy.scalingMaxKHz == 1_800_000)

        let chromebook = PowerKnobInventory.read(root: RAPLFixtures.root("chromebook-broken-sensors"))
        #expect(chromebook.policies.map(\.name) == ["policy0", "policy4"])
        #expect(chromebook.policies.map(\.governor) == ["schedutil", nil])
        #expect(chromebook.policies.map(\.cpuinfoMaxKHz) == [1_416_000, 1_800_000])
    }

    @Test func controlFileWritesInPlace() throws {
        let tree = try KnobTree.intelLaptop()
        let file = ControlFile(root: tree.root, path: "/sys/devices/system/cpu/intel_pstate/no_turbo")
        #expect(file.exists)
        #expect(try file.read() == "0")
        try file.write("1")
        #expect(try tree.read("sys/devices/system/cpu/intel_pstate/no_turbo") == "1\n")
        #expect(BootID.read(root: tree.root) == "6f1c9a52-1c3e-4a8e-9d3b-0b7f1e2a4c11")
    }

    /// A read-only kernel file refuses the write with EACCES even for root, and the error
    /// carries the errno.
    @Test func refusedWriteIsTypedError() throws {
        let tree = try KnobTree()
        try tree.link("sys/firmware/acpi/platform_profile", to: "/proc/sys/kernel/random/boot_id")
        let file = ControlFile(root: tree.root, path: "/sys/firmware/acpi/platform_profile")
        #expect(throws: HardwareError.self) { try file.write("low-power") }
        do {
            try file.write("low-power")
        } catch {
            #expect(error.errno == .permissionDenied || error.errno == .noEntry)
        }
    }
}
