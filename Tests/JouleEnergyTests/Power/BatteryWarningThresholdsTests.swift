import JouleEnergy
import Testing

@Suite struct BatteryWarningThresholdsTests {
    @Test func parsesLowCriticalAction() throws {
        #expect(try BatteryWarningThresholds(spec: "20,5,2") == .upower)
        #expect(try BatteryWarningThresholds(spec: " 30 , 10,0 ") == BatteryWarningThresholds(low: 30, critical: 10, action: 0))
        #expect(try BatteryWarningThresholds(spec: "5,5,5") == BatteryWarningThresholds(low: 5, critical: 5, action: 5))
    }

    @Test(arguments: ["", "20,5", "20,5,2,1", "5,20,2", "101,5,2", "20,5,-1", "a,b,c", "20;5;2"])
    func refuses(_ spec: String) {
        #expect(throws: BatteryWarningThresholds.SpecError.self) { try BatteryWarningThresholds(spec: spec) }
    }
}
