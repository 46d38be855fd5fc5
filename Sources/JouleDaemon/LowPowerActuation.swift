import JouleHardware
import JouleEnergy

/// Carries out the engine's Low Power Mode on the machine. Intent stays in the engine; this
/// only enacts it, through one of two actuators:
/// - power-profiles-daemon (or any owner of its name) when it runs: a hold on power-saver,
///   released when Low Power Mode ends (the service drops it by itself if joule dies), and
///   no CPU knob written by joule;
/// - otherwise joule's own knobs (`KnobActuator`), journaled before the first write and
///   restored when Low Power Mode ends, on shutdown, and at start-up after a crash.
///
/// It also tells apart the user's own profile choices from the effects of its hold: a
/// `ProfileReleased` for its cookie is the user picking a profile, and power-saver chosen
/// while it holds nothing is the user asking for Low Power Mode.
package actor LowPowerActuation {
    /// What a profile change means for the engine.
    package enum ProfileVerdict: Sendable, Equatable {
        /// Nothing for the engine (joule's own hold, or no change).
        case none
        /// The user picked a profile while joule held power-saver: a manual choice.
        case manualChoice(LowPowerOverride)
        /// The user chose (true) or left (false) power-saver while joule held nothing: only
        /// on a change, so a service found in balanced says nothing.
        case profileRequest(Bool)
    }

    package static let powerSaver = "power-saver"
    package static let holdReason = "Low Power Mode"
    package static let applicationID = "joule"

    private var actuators: Set<DaemonConfiguration.Actuator>
    private var planner: LowPowerKnobs
    private let knobs: KnobActuator
    private let log: @Sendable (String) -> Void

    private var profiles: (any PowerProfileHolding)?
    private var cookie: UInt32?
    /// A HoldProfile call is under way: profile changes now are joule's own.
    private var holdPending = false
    private var knobsApplied = false
    private var wanted = false
    /// The user chose power-saver themselves: Low Power Mode needs no hold of joule's then.
    private var userPowerSaver = false
    /// The knobs' latest outcomes, for `lowPowerActions`.
    package private(set) var actions: [KnobOutcome] = []
    /// Knobs already reported as foreign, so each is logged once.
    private var reportedForeign: Set<String> = []

    package init(
        actuators: Set<DaemonConfiguration.Actuator>, knobs configuration: LowPowerKnobConfiguration, actuator: KnobActuator,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.actuators = actuators
        planner = LowPowerKnobs(configuration: configuration)
        knobs = actuator
        self.log = log
    }

    /// Whether joule holds power-saver now.
    package var holdCookie: UInt32? { cookie }
    /// Whether the power-profiles service is the actuator now.
    package var usesPowerProfiles: Bool { profiles != nil && actuators.contains(.powerProfilesDaemon) }

    /// Start-up: restores what a crashed daemon left on this boot (or drops a journal from an
    /// earlier boot), before anything else is written.
    package func recover() {
        do {
            switch try knobs.restore() {
            case .nothing: break
            case .stale(let boot):
                log("knob journal from an earlier boot (\(boot ?? "unknown")) discarded: the kernel reset the knobs")
            case .restored(let outcomes):
                log("restoring knobs left by an earlier run")
                record(outcomes)
            }
        } catch {
            log("cannot restore knobs from the journal: \(error)")
        }
    }

    /// New configuration (SIGHUP): re-enacts with the new knobs when Low Power Mode is on.
    package func reconfigure(actuators: Set<DaemonConfiguration.Actuator>, knobs configuration: LowPowerKnobConfiguration) async {
        guard actuators != self.actuators || configuration != planner.configuration else { return }
        let on = wanted
        await set(false)
        self.actuators = actuators
        planner = LowPowerKnobs(configuration: configuration)
        await set(on)
    }

    /// power-profiles-daemon appeared (with its client) or went away (nil).
    package func profilesChanged(_ client: (any PowerProfileHolding)?) async {
        if client == nil, profiles != nil {
            // Its holds died with it.
            cookie = nil
            holdPending = false
            userPowerSaver = false
        }
        profiles = client
        await reconcile()
    }

    /// Low Power Mode is now `on`: enact or undo.
    package func set(_ on: Bool) async {
        wanted = on
        await reconcile()
    }

    /// Shutdown: releases the hold and restores every knob.
    package func shutdown() async {
        await set(false)
    }

    /// The service's active profile changed to `profile`.
    package func activeProfileChanged(_ profile: String) -> ProfileVerdict {
        if holdPending || cookie != nil { return .none }
        let chosen = profile == Self.powerSaver
        guard chosen != userPowerSaver else { return .none }
        userPowerSaver = chosen
        return .profileRequest(chosen)
    }

    /// The service released hold `released` (the user picked `activeProfile`).
    package func profileReleased(_ released: UInt32, activeProfile: String?) -> ProfileVerdict {
        guard released == cookie else { return .none }
        cookie = nil
        userPowerSaver = activeProfile == Self.powerSaver
        log("power-profiles-daemon released joule's power-saver hold: the user picked \(activeProfile ?? "another profile")")
        return .manualChoice(activeProfile == Self.powerSaver ? .on : .off)
    }

    private func reconcile() async {
        let viaProfiles = usesPowerProfiles
        let viaKnobs = !viaProfiles && actuators.contains(.knobs)
        if !wanted || !viaKnobs, knobsApplied { restoreKnobs() }
        if !wanted || !viaProfiles { await releaseHold() }
        guard wanted else { return }
        if viaProfiles, cookie == nil, !userPowerSaver, let profiles {
            holdPending = true
            do {
                cookie = try await profiles.hold(profile: Self.powerSaver, reason: Self.holdReason, applicationID: Self.applicationID)
                log("holding power-saver on \(profiles.busName) (cookie \(cookie ?? 0))")
            } catch {
                log("cannot hold power-saver on \(profiles.busName): \(error)")
            }
            holdPending = false
            // Low Power Mode may have ended while the call was out.
            if !wanted { await releaseHold() }
        } else if viaKnobs, !knobsApplied {
            do {
                record(try knobs.apply(planner.plan(root: knobs.root)))
                knobsApplied = true
            } catch {
                log("cannot journal the knobs, so none was written: \(error)")
            }
        }
    }

    private func releaseHold() async {
        guard let held = cookie else { return }
        cookie = nil
        guard let profiles else { return }
        do {
            try await profiles.release(cookie: held)
            log("released power-saver hold \(held) on \(profiles.busName)")
        } catch {
            // Already released (the user picked a profile) or the service is gone.
            log("releasing power-saver hold \(held): \(error)")
        }
    }

    private func restoreKnobs() {
        do {
            record(try knobs.restore().outcomes)
            knobsApplied = false
        } catch {
            log("cannot restore knobs: \(error)")
        }
    }

    /// Keeps outcomes for `lowPowerActions` (newest per path) and logs what needs a word.
    private func record(_ outcomes: [KnobOutcome]) {
        for outcome in outcomes {
            switch outcome.state {
            case .foreign:
                if reportedForeign.insert(outcome.path).inserted {
                    log("\(outcome.path) changed since joule wrote \(outcome.written): another tool owns it, left as it is")
                }
            case .failed(let reason):
                log("\(outcome.knob) (\(outcome.path)): \(reason)")
            case .applied:
                reportedForeign.remove(outcome.path)
                if outcome.original != outcome.written { log("\(outcome.knob) (\(outcome.path)) \(outcome.original ?? "?") → \(outcome.written)") }
            case .restored:
                log("\(outcome.knob) (\(outcome.path)) back to \(outcome.original ?? "its original value")")
            }
            actions.removeAll { $0.path == outcome.path }
            actions.append(outcome)
        }
    }
}
