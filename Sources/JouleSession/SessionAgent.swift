import JouleWire
import JouleHardware
import JouleEnergy
import JouleApps

/// `joule session`: the per-user agent hosting LowPowerSession and SessionNotifier, fed by
/// org.joule.Energy1's signals (the session bus's daemon first, else the system bus's) and,
/// with transfer notifications on, org.joule.Transfers1's (TransferBatchFollower), until a
/// termination signal; it restores the session's settings before it returns.
public enum SessionAgent {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// - Parameters:
    ///   - environment: the agent's (buses, XDG directories, XDG_CURRENT_DESKTOP, PATH for gsettings).
    ///   - root: the tree `/sys/class/backlight` is read under.
    public static func run(
        settings: SessionSettings, environment: [String: String], stateDirectory: StateDirectory, root: String = "/",
        until signals: AsyncStream<TerminationSignal>, log: @escaping @Sendable (String) -> Void
    ) async throws(Failure) {
        let session: BusConnection
        do {
            session = try await BusConnection.session(environment: environment)
        } catch {
            throw Failure(description: "no session bus: \(error)")
        }
        let system = try? await BusConnection.system(environment: environment)
        let daemon = await daemonBus(session: session, system: system)
        let energyBus = daemon ?? system ?? session

        let lowPower = LowPowerSession(
            items: items(settings: settings, environment: environment, root: root, session: session, system: system),
            journal: SessionJournal(directory: stateDirectory), log: log)
        await lowPower.recover()
        let client = NotificationsClient(bus: session)
        let notifier = SessionNotifier(
            client: client, policy: NotificationPolicy(switches: settings.notifications),
            setLowPowerMode: { mode in
                _ = try await energyBus.call(
                    destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName,
                    member: "SetLowPowerMode", arguments: [.string(mode)])
            }, log: log)

        let energySignals: AsyncStream<BusSignalMessage>
        let notificationEvents: AsyncStream<NotificationsClient.Event>
        // org.joule.Transfers1 is the same daemon's, on the same bus; followed only when its
        // notifications are on.
        var transferSignals: AsyncStream<BusSignalMessage>?
        do {
            // In place before the first read, so no change falls between the two.
            energySignals = try await energyBus.signals(matchingAny: [EnergySignalDecoder.rule, ownerRule])
            notificationEvents = try await client.events()
            if settings.notifications.transfers {
                transferSignals = try await energyBus.signals(matchingAny: TransferBatchFollower.rules)
            }
        } catch {
            await lowPower.stop()
            throw Failure(description: "cannot follow the buses: \(error)")
        }
        // The policy learns the state too (a low battery offers Low Power Mode only while off);
        // a reason of no kind announces nothing.
        let catchUp: @Sendable () async -> Void = {
            guard let on = try? await energyBus.property(
                destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName, name: "LowPowerMode"
            ).boolValue else { return }
            await lowPower.set(lowPowerMode: on)
            await notifier.handle(.lowPowerMode(on: on, reason: "initial"))
        }
        if daemon != nil {
            await catchUp()
        } else {
            // Said once the matches are in place, so a daemon starting from now on is heard.
            log("session: org.joule.Energy1 is on neither bus yet; following the \(system == nil ? "session" : "system") bus for when it starts")
        }

        // The foreground follows the focused window where the session says how to see it.
        var focus: (any DesktopFocusSource)?
        do throws(DesktopFocusError) {
            focus = try DesktopFocusSourceKind.choose(environment: environment).open()
        } catch {
            log("session: no window focus to follow (\(error)); the foreground is left to joule app")
        }
        let follower = ForegroundFollower(bus: energyBus, log: log)

        // true: that task's end ends the agent (a signal, or a bus gone); a focus source that
        // ends (the X server gone) leaves the rest running.
        await withTaskGroup(of: Bool.self) { group in
            if let focus {
                group.addTask {
                    await follower.follow(focus)
                    return false
                }
            }
            group.addTask {
                for await signal in energySignals {
                    // The daemon started or restarted: what it says now, not what it said last.
                    if signal.member == "NameOwnerChanged" {
                        if signal.arguments.count == 3, signal.arguments[2].stringValue?.isEmpty == false { await catchUp() }
                        continue
                    }
                    for event in EnergySignalDecoder.decode(signal) {
                        if case .lowPowerMode(let on, _) = event { await lowPower.set(lowPowerMode: on) }
                        await notifier.handle(event)
                    }
                }
                return true
            }
            group.addTask {
                await notifier.follow(notificationEvents)
                return true
            }
            if let transferSignals {
                let batches = TransferBatchFollower(bus: energyBus, notifier: notifier, log: log)
                group.addTask {
                    await batches.follow(transferSignals)
                    return false
                }
            }
            group.addTask {
                for await signal in signals {
                    log("session: \(signal), restoring the session's settings and exiting")
                    return true
                }
                return true
            }
            while let ends = await group.next(), !ends {}
            focus?.stop()
            group.cancelAll()
        }
        focus?.stop()
        // Nothing moves the apps once the agent is gone: none is left in the background.
        if focus != nil { await follower.release() }
        await lowPower.stop()
        await session.close()
        await system?.close()
    }

    /// org.joule.Energy1 gaining or losing its owner.
    static let ownerRule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
        + "member='NameOwnerChanged',arg0='\(EnergyBus.busName)'"

    /// The bus whose org.joule.Energy1 has an owner: the session's first, as clients look.
    static func daemonBus(session: BusConnection, system: BusConnection?) async -> BusConnection? {
        for bus in [session, system].compactMap({ $0 }) where await hasOwner(EnergyBus.busName, on: bus) { return bus }
        return nil
    }

    static func hasOwner(_ name: String, on bus: BusConnection) async -> Bool {
        let reply = try? await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)])
        return reply?.first?.boolValue ?? false
    }

    /// GNOME's animations always (a missing schema is one log line); KDE's where KDE is; the
    /// first backlight, capped only with `lowPowerBrightnessPercent` but listed regardless so an
    /// earlier run's cap is restored. logind is on the system bus.
    static func items(
        settings: SessionSettings, environment: [String: String], root: String, session: BusConnection, system: BusConnection?
    ) -> [LowPowerSessionItem] {
        var items: [LowPowerSessionItem] = [.animations(GSettingsValue.animations(environment: environment))]
        if let configHome = environment["XDG_CONFIG_HOME"] ?? environment["HOME"].map({ $0 + "/.config" }),
           KDEGlobalsValue.isPresent(configHome: configHome, currentDesktop: environment["XDG_CURRENT_DESKTOP"]) {
            items.append(.animations(KDEGlobalsValue.animations(configHome: configHome, bus: session)))
        }
        if let system, let name = BacklightValue.devices(root: root).first {
            let backlight = BacklightValue(root: root, name: name, bus: system)
            if let maximum = try? backlight.maximum() {
                items.append(.backlight(backlight, percent: settings.lowPowerBrightnessPercent, maximum: maximum))
            }
        }
        return items
    }
}
