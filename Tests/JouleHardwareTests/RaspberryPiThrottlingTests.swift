import Foundation
import Testing

@testable import JouleHardware

/// `get_throttled`: the bits as Raspberry Pi documents them, the Pi 4 fixture, machines
/// without the file, and content or reads that fail.
@Suite struct RaspberryPiThrottlingTests {
    static let pi = "raspberry-pi-4-no-battery"

    @Test func bitsMeanWhatTheFirmwareDocumentsSays() throws {
        let flags = try #require(RaspberryPiThrottling.parse("50005"))
        #expect(flags.bits == 0x50005)
        #expect(RaspberryPiThrottling.Condition.allCases.filter(flags.isActive) == [.underVoltage, .throttled])
        #expect(RaspberryPiThrottling.Condition.allCases.filter(flags.hasOccurred) == [.underVoltage, .throttled])
        let capped = try #require(RaspberryPiThrottling.parse("0xa0008"))
        #expect(RaspberryPiThrottling.Condition.allCases.filter(capped.isActive) == [.softTemperatureLimit])
        #expect(RaspberryPiThrottling.Condition.allCases.filter(capped.hasOccurred) == [.armFrequencyCapped, .softTemperatureLimit])
        #expect(RaspberryPiThrottling.parse("0")?.bits == 0)
        #expect(RaspberryPiThrottling.parse("FFFFFFFF")?.bits == UInt32.max)
        #expect(RaspberryPiThrottling.Condition.allCases.map(\.label) == ["under_voltage", "arm_frequency_capped", "throttled", "soft_temp_limit"])
    }

    @Test(arguments: ["", "0x", "throttled=0x50005", "-5", "+5", "123456789", "5 0", "５"])
    func garbageIsNotFlags(_ text: String) {
        #expect(RaspberryPiThrottling.parse(text) == nil)
    }

    @Test func thePi4FixtureIsUnderVoltedAndThrottled() throws {
        let flags = try #require(try RaspberryPiThrottlingReader(root: RAPLFixtures.root(Self.pi)).read())
        #expect(flags.bits == 0x50005)
        #expect(flags.isActive(.underVoltage) && flags.isActive(.throttled) && !flags.isActive(.armFrequencyCapped))
    }

    @Test func otherMachinesHaveNoFile() throws {
        for machine in [RAPLFixtures.xps, RAPLFixtures.ryzenDesktop, "chromebook-broken-sensors"] {
            #expect(try RaspberryPiThrottlingReader(root: RAPLFixtures.root(machine)).read() == nil, "\(machine)")
        }
    }

    @Test func garbageContentIsAParseErrorNamingTheFile() throws {
        let copy = try RAPLFixtures.Copy(Self.pi)
        let path = copy.path + RaspberryPiThrottlingReader.path
        try Data("throttled=0x50005\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try RaspberryPiThrottlingReader(root: copy.root).read()
        } throws: { error in
            let error = error as? HardwareError
            return error?.operation == "parse" && error?.path == path && error?.description.contains("\"throttled=0x50005\"") == true
        }
    }

    @Test func aFailedReadIsAnErrorNotAbsence() throws {
        let reader = RaspberryPiThrottlingReader(root: RAPLFixtures.root(Self.pi)) { path throws(HardwareError) in
            throw HardwareError(operation: "read", path: path, errno: .ioError)
        }
        #expect(throws: HardwareError.self) { try reader.read() }
    }
}
