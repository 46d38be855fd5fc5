import Testing
@testable import JouleEnergy

@Suite struct ThermalStateTests {
    @Test func orderedAndNamed() {
        #expect(ThermalState.nominal < .fair && .fair < .serious && .serious < .critical)
        #expect(ThermalState(name: "serious") == .serious)
        #expect(ThermalState(name: "hot") == nil)
        #expect(ThermalState.allCases.map(\.description) == ["nominal", "fair", "serious", "critical"])
    }
}
