import Testing
@testable import JouleEnergy
@testable import JouleWorkloads

/// The pure decision: which level pauses in which thermal state and Low Power Mode.
@Suite struct PauseDecisionTests {
    /// For each level, the lowest thermal state that pauses it and whether LPM pauses it.
    static let table: [(WorkloadLevel, ThermalState, Bool)] = [
        (.deferrable, .fair, true),
        (.optional, .serious, false),
        (.normal, .critical, false),
    ]

    @Test(arguments: WorkloadLevel.allCases)
    func everyLevelInEveryStateWithAndWithoutLowPowerMode(_ level: WorkloadLevel) throws {
        let (_, pauseAt, pausesInLPM) = try #require(Self.table.first { $0.0 == level })
        let workload = WorkloadClass(name: "w", level: level, selectors: [.process("w")])
        for state in ThermalState.allCases {
            for lowPowerMode in [false, true] {
                let cause = workload.pauseCause(lowPowerMode: lowPowerMode, thermalState: state)
                let expected: PauseCause? =
                    state >= pauseAt ? .thermal(state) : (lowPowerMode && pausesInLPM ? .lowPowerMode : nil)
                #expect(cause == expected, "\(level) at \(state), LPM \(lowPowerMode)")
            }
        }
    }

    @Test func overridesReplaceTheLevelDefaults() {
        let never = WorkloadClass(name: "w", level: .deferrable, selectors: [], pauseAt: .some(nil), pauseInLowPowerMode: false)
        for state in ThermalState.allCases {
            #expect(never.pauseCause(lowPowerMode: true, thermalState: state) == nil)
        }
        let eager = WorkloadClass(name: "w", level: .normal, selectors: [], pauseAt: .fair, pauseInLowPowerMode: true)
        #expect(eager.pauseCause(lowPowerMode: true, thermalState: .nominal) == .lowPowerMode)
        #expect(eager.pauseCause(lowPowerMode: false, thermalState: .fair) == .thermal(.fair))
        #expect(eager.pauseCause(lowPowerMode: false, thermalState: .nominal) == nil)
    }

    @Test func reasonsAreReadable() {
        #expect(PauseCause.thermal(.serious).description == "thermal:serious")
        #expect(PauseCause.lowPowerMode.description == "lowPowerMode")
    }
}
