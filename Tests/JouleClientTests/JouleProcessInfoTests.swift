@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleClient
import JouleTesting
import Testing

@Suite struct JouleProcessInfoTests {
    @Test func mirrorsProcessInfoAndStreamsChanges() async throws {
        let source = MemoryDeviceSource()
        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 30), MemoryDeviceSource.ac(online: false)])
        source.set("thermal", [MemoryDeviceSource.zone(milli: "50000")])
        let clock = ManualClock()
        var configuration = EnergyMonitor.Configuration()
        configuration.schedule.fixedInterval = .seconds(1)
        configuration.procRoot = "/nonexistent"
        let info = try await JouleProcessInfo(source: source, overrideStore: nil, clock: clock, configuration: configuration)
        #expect(!info.isLowPowerModeEnabled)
        #expect(info.thermalState == .nominal)

        var lowPower = info.lowPowerModeChanges.makeAsyncIterator()
        var thermal = info.thermalStateChanges.makeAsyncIterator()
        await clock.waitForSleepers(1)

        source.set("power_supply", [MemoryDeviceSource.battery(status: "Discharging", capacity: 19), MemoryDeviceSource.ac(online: false)])
        source.set("thermal", [MemoryDeviceSource.zone(milli: "96000")])
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(100))  // the thermal confirmation read
        await clock.waitForSleepers(1)

        #expect(await lowPower.next() == true)
        #expect(await thermal.next() == .critical)
        #expect(info.isLowPowerModeEnabled)
        #expect(info.thermalState == .critical)

        info.invalidate()
        #expect(await thermal.next() == nil)
    }

    @Test func fixtureRootThatDoesNotExistIsAClearError() async {
        do {
            _ = try await JouleProcessInfo(root: "/nonexistent-joule-root")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("/nonexistent-joule-root"))
        }
    }
}
