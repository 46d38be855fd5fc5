import JouleTransferQueue

/// Runs one attempt (download or upload) beside a watchdog over its `ByteCounter`, shared so
/// both directions enforce `tuning.throughputFloor` the same way. When the floor is broken the
/// attempt's task is cancelled; it keeps what is durable and returns, and its outcome becomes
/// `.suspended`. When the caller's task is cancelled (the scheduler lost a condition), the
/// attempt ends the same way and a transient outcome becomes `.suspended(reason: "cancelled")`,
/// so the queue neither counts an attempt nor loses durableBytes.
enum ThroughputWatchdog {
    private enum Report: Sendable {
        case finished(TransferAttemptResult)
        case floorBroken
        case stopped
    }

    static func run(
        tuning: TransferTuning, counter: ByteCounter,
        _ attempt: @escaping @Sendable () async -> TransferAttemptResult
    ) async -> TransferAttemptResult {
        await withTaskGroup(of: Report.self) { group in
            group.addTask { .finished(await attempt()) }
            group.addTask {
                let clock = ContinuousClock(), start = clock.now
                var meter = ThroughputMeter(floor: tuning.throughputFloor, window: tuning.throughputWindow)
                let tick = min(Duration.seconds(1), tuning.throughputWindow / 4)
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    if Task.isCancelled { break }
                    if meter.record(time: (clock.now - start).inSeconds, bytes: counter.value) { return .floorBroken }
                }
                return .stopped
            }
            var floorBroken = false
            // The attempt's own result is always awaited: it carries durableBytes and validators.
            while let report = await group.next() {
                switch report {
                case .stopped:
                    continue
                case .floorBroken:
                    floorBroken = true
                    group.cancelAll()
                case .finished(var result):
                    group.cancelAll()
                    if case .completed = result.outcome { return result }
                    if floorBroken {
                        let window = Int(tuning.throughputWindow.inSeconds.rounded())
                        result.outcome = .suspended(reason: "throughput below \(tuning.throughputFloor) B/s for \(window) s")
                    } else if Task.isCancelled, case .retry = result.outcome {
                        result.outcome = .suspended(reason: "cancelled")
                    }
                    return result
                }
            }
            preconditionFailure("the attempt task always reports")
        }
    }
}
