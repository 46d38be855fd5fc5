import Testing
@testable import JouleEnergy
@testable import JouleWorkloads

@Suite struct ScanPolicyInputTests {
    @Test(arguments: [
        (false, ThermalState.nominal, ScanPolicyInput.normal), (false, .fair, .normal),
        (false, .serious, .reduced), (false, .critical, .stopped),
        (true, .nominal, .reduced), (true, .fair, .reduced), (true, .serious, .reduced), (true, .critical, .stopped),
    ])
    func energyStateLowersOrStopsScanning(lowPowerMode: Bool, thermal: ThermalState, expected: ScanPolicyInput) {
        #expect(ScanPolicyInput.forEnergy(lowPowerMode: lowPowerMode, thermalState: thermal) == expected)
    }
}
