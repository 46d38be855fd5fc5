/// Where the daemon's history recorder, `/metrics` and `joule export` get the host's energy.
/// Measured on demand: nobody asking means no reads, which keeps an idle daemon idle. The
/// caller must ask often enough for RAPL's counter not to wrap twice between asks (the history
/// recorder's minute is).
public protocol EnergySnapshotSource: Sendable {
    func snapshot() async -> EnergySnapshot
}
