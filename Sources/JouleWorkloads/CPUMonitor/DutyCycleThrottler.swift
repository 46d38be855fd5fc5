import JouleHardware

/// Holds processes, or every process of a cgroup, to a share of one core by SIGSTOP/SIGCONT
/// duty cycling through process control (which guards every stop against a crash).
///
/// A cgroup's members are re-read at the start of each slot, so processes that arrive are held
/// too and processes that leave are continued and let go. Whatever is stopped is continued by
/// `releaseAll()`.
struct DutyCycleThrottler<Controller: ProcessController> {
    struct ProcessThrottle {
        var handle: Controller.Handle
        var cycle: DutyCycle
    }

    struct GroupThrottle {
        var cycle: DutyCycle
        var members: [ProcessIdentity: Controller.Handle] = [:]
        var stopped: Set<ProcessIdentity> = []
        /// Each member's CPU time when last seen, and the group's total of their increases.
        var memberNanoseconds: [ProcessIdentity: UInt64] = [:]
        var total: UInt64 = 0
    }

    let controller: Controller
    let period: Duration
    let limitPercent: Double
    private(set) var processes: [ProcessIdentity: ProcessThrottle] = [:]
    private(set) var groups: [CgroupPath: GroupThrottle] = [:]

    init(controller: Controller, period: Duration, limitPercent: Double) {
        self.controller = controller
        self.period = period
        self.limitPercent = limitPercent
    }

    var isEmpty: Bool { processes.isEmpty && groups.isEmpty }

    /// Starts holding one process through an open handle, which the throttler now owns.
    mutating func hold(_ identity: ProcessIdentity, handle: Controller.Handle, duty: Double, nanoseconds: UInt64, now: Double) {
        processes[identity] = ProcessThrottle(handle: handle, cycle: DutyCycle(duty: duty, nanoseconds: nanoseconds, time: now))
    }

    /// Starts holding every process of `cgroup` and below.
    mutating func hold(cgroup: CgroupPath, duty: Double, now: Double) {
        guard groups[cgroup] == nil else { return }
        groups[cgroup] = GroupThrottle(cycle: DutyCycle(duty: duty, nanoseconds: 0, time: now))
    }

    /// Feeds a held process's CPU time to its duty cycle.
    mutating func observe(_ identity: ProcessIdentity, nanoseconds: UInt64, time: Double) {
        let limit = limitPercent
        processes[identity]?.cycle.adjust(nanoseconds: nanoseconds, time: time, limitPercent: limit)
    }

    /// Feeds the CPU time of every sampled process to the cgroup duty cycles.
    mutating func observe(samples: [ProcessIdentity: UInt64], time: Double) {
        for cgroup in groups.keys {
            guard var group = groups[cgroup] else { continue }
            for identity in group.members.keys {
                guard let nanoseconds = samples[identity] else { continue }
                if let previous = group.memberNanoseconds[identity], nanoseconds >= previous {
                    group.total &+= nanoseconds - previous
                }
                group.memberNanoseconds[identity] = nanoseconds
            }
            group.cycle.adjust(nanoseconds: group.total, time: time, limitPercent: limitPercent)
            groups[cgroup] = group
        }
    }

    /// Lets a process go (it exited, or its PID was reused): continued if stopped, closed.
    mutating func drop(_ identity: ProcessIdentity) {
        guard let throttle = processes.removeValue(forKey: identity) else { return }
        if throttle.cycle.stopped { _ = try? controller.resume(throttle.handle) }
        controller.close(throttle.handle)
    }

    /// Runs every duty cycle: SIGCONT at the start of each slot, SIGSTOP once the held work
    /// has run its share of it. `members` lists the processes of a cgroup that may be held
    /// now (the safety rules applied). Returns when it next needs to run, nil when nothing
    /// is held.
    mutating func advance(now: Double, members: (CgroupPath) -> [ProcessIdentity]) -> Double? {
        var next: Double?
        func due(_ time: Double) { next = min(next ?? time, time) }
        for identity in processes.keys.sorted(by: { $0.pid < $1.pid }) {
            guard var throttle = processes[identity] else { continue }
            if throttle.cycle.beginSlotIfDue(now: now, period: period), throttle.cycle.stopped {
                guard (try? controller.resume(throttle.handle)) == true else {
                    forget(identity, throttle)
                    continue
                }
                throttle.cycle.stopped = false
            }
            if throttle.cycle.stopIsDue(now: now) {
                do {
                    guard try controller.stop(throttle.handle) else {
                        forget(identity, throttle)
                        continue
                    }
                    throttle.cycle.stopped = true
                } catch {
                    // The stop could not be guarded against a crash: let it run this slot.
                }
                throttle.cycle.stopAt = nil
            }
            processes[identity] = throttle
            due(throttle.cycle.nextDue(period: period))
        }
        for cgroup in groups.keys.sorted() {
            guard var group = groups[cgroup] else { continue }
            if group.cycle.beginSlotIfDue(now: now, period: period) {
                for identity in group.stopped.sorted(by: { $0.pid < $1.pid }) {
                    if let handle = group.members[identity] { _ = try? controller.resume(handle) }
                }
                group.stopped.removeAll()
                group.cycle.stopped = false
                refresh(&group, members: members(cgroup))
            }
            if group.cycle.stopIsDue(now: now) {
                for (identity, handle) in group.members.sorted(by: { $0.key.pid < $1.key.pid }) {
                    if (try? controller.stop(handle)) == true { group.stopped.insert(identity) }
                }
                group.cycle.stopped = true
                group.cycle.stopAt = nil
            }
            groups[cgroup] = group
            due(group.cycle.nextDue(period: period))
        }
        return next
    }

    /// Opens handles on arriving members and lets departed ones go (none is stopped here:
    /// refreshing happens at the start of a slot, after every member was continued).
    private func refresh(_ group: inout GroupThrottle, members current: [ProcessIdentity]) {
        let wanted = Set(current)
        for (identity, handle) in group.members where !wanted.contains(identity) {
            controller.close(handle)
            group.members[identity] = nil
            group.memberNanoseconds[identity] = nil
        }
        for identity in current where group.members[identity] == nil {
            if let handle = try? controller.open(identity) { group.members[identity] = handle }
        }
    }

    private mutating func forget(_ identity: ProcessIdentity, _ throttle: ProcessThrottle) {
        processes[identity] = nil
        controller.close(throttle.handle)
    }

    /// Continues every held process, whatever it is believed to be doing, and closes every
    /// handle. Returns what failed. Safe to call more than once.
    mutating func releaseAll() -> [String] {
        var failures: [String] = []
        func resume(_ identity: ProcessIdentity, _ handle: Controller.Handle) {
            do {
                _ = try controller.resume(handle)
            } catch {
                failures.append("cannot continue pid \(identity.pid): \(error)")
            }
            controller.close(handle)
        }
        for (identity, throttle) in processes { resume(identity, throttle.handle) }
        processes.removeAll()
        for group in groups.values {
            for (identity, handle) in group.members { resume(identity, handle) }
        }
        groups.removeAll()
        return failures
    }
}
