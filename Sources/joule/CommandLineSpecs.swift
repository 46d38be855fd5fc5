import ArgumentParser
import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleHistory

// The library values commands take as arguments, each parsed once by its own type.

extension ScanDuty: CommandLineSpec {
    static func parse(spec: String) -> Result<ScanDuty, SpecError> {
        do throws(SpecError) { return .success(try ScanDuty(spec: spec)) } catch { return .failure(error) }
    }
}

extension BeaconRegion: CommandLineSpec {
    static func parse(spec: String) -> Result<BeaconRegion, SpecError> {
        do throws(SpecError) { return .success(try BeaconRegion(spec: spec)) } catch { return .failure(error) }
    }
}

extension DistanceModel: CommandLineSpec {
    static func parse(spec: String) -> Result<DistanceModel, SpecError> {
        do throws(SpecError) { return .success(try DistanceModel(spec: spec)) } catch { return .failure(error) }
    }
}

extension BatteryWarningThresholds: CommandLineSpec {
    static func parse(spec: String) -> Result<BatteryWarningThresholds, SpecError> {
        do throws(SpecError) { return .success(try BatteryWarningThresholds(spec: spec)) } catch { return .failure(error) }
    }
}

extension HistoryTimeSpec: CommandLineSpec {
    static func parse(spec: String) -> Result<HistoryTimeSpec, SpecError> {
        do throws(SpecError) { return .success(try HistoryTimeSpec(spec: spec)) } catch { return .failure(error) }
    }
}
