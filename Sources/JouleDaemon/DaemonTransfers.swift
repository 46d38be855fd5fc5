import JouleWire
import JouleHardware
import JouleEnergy
import JouleTransferQueue

/// The daemon's deferred transfers (issue 13): the SQLite queue in the state directory, the
/// scheduler, the `org.joule.Transfers1` object, and what wakes the scheduler besides the
/// engines: NetworkManager's `Metered` (PropertiesChanged) and rtnetlink link and route
/// changes. Nothing here polls.
actor DaemonTransfers {
    let scheduler: TransferScheduler
    let service: TransfersService
    private let root: FileRoot
    private let systemBus: BusConnection?
    private let log: @Sendable (String) -> Void
    private var settings: TransferSettings
    private var power: PowerReadings
    private var networkManager: NetworkManagerClient.Metered?
    private var metered: NetworkMeteredness.Decision
    private var watchers: [Task<Void, Never>] = []
    private var netlink: NetworkChangeMonitor?

    /// The engines' half of the scheduler's readings.
    struct PowerReadings: Sendable, Hashable {
        var lineOnline: Bool
        var batteryPercentage: Double?
        var lowPowerMode: Bool
        var thermalState: ThermalState
    }

    /// Opens the queue and exports the object; nothing runs until `start()`.
    init(
        bus: BusConnection, systemBus: BusConnection?, stateDirectory: StateDirectory, transport: any TransferTransport,
        settings: TransferSettings, power: PowerReadings, root: FileRoot, log: @escaping @Sendable (String) -> Void
    ) async throws(JouleDaemon.Failure) {
        let store: TransferStore
        do {
            try stateDirectory.create()
            store = try TransferStore(stateDirectory: stateDirectory)
        } catch {
            throw .setup("cannot open the transfer queue in \(stateDirectory.path): \(error)")
        }
        self.root = root
        self.systemBus = systemBus
        self.log = log
        self.settings = settings
        self.power = power
        metered = NetworkMeteredness.read(root: root, overrides: settings.meteredInterfaces, networkManager: nil)
        scheduler = TransferScheduler(
            store: store, transport: transport, settings: settings,
            readings: Self.readings(power, metered: metered.metered), log: log)
        do {
            service = try await TransfersService.export(on: bus, scheduler: scheduler, log: log)
        } catch {
            throw .bus("cannot export \(TransfersBus.objectPath): \(error)")
        }
    }

    private static func readings(_ power: PowerReadings, metered: Bool) -> TransferScheduler.Readings {
        TransferScheduler.Readings(
            lineOnline: power.lineOnline, batteryPercentage: power.batteryPercentage, lowPowerMode: power.lowPowerMode,
            thermalState: power.thermalState, metered: metered)
    }

    /// Follows the network, announces the scheduler's notices (and hands each finished
    /// transfer to `finished`: the history's markers), and starts the queue.
    func start(finished: (@Sendable (Transfer) async -> Void)? = nil) async {
        let service = self.service
        let notices = scheduler.notices
        watchers.append(Task {
            for await notice in notices {
                await service.announce(notice)
                if case .finished(let transfer) = notice { await finished?(transfer) }
            }
        })
        if let systemBus {
            do {
                // The matches are in place before the first read, so no change falls between.
                let changes = try await NetworkManagerClient.changes(on: systemBus)
                watchers.append(Task { [weak self] in
                    for await change in changes { await self?.networkManagerChanged(change) }
                })
                if let client = await NetworkManagerClient.find(on: systemBus) { networkManager = try? await client.metered() }
            } catch {
                log("transfers: cannot follow NetworkManager: \(error)")
            }
        }
        do {
            let monitor = try NetworkChangeMonitor()
            netlink = monitor
            watchers.append(Task { [weak self] in
                for await _ in monitor.changes { await self?.networkChanged() }
            })
        } catch {
            log("transfers: cannot follow link and route changes (the network is read at each engine change instead): \(error)")
        }
        refreshNetwork(announce: true)
        await scheduler.setReadings(Self.readings(power, metered: metered.metered))
        await scheduler.start()
    }

    func stop() async {
        netlink?.stop()
        await scheduler.stop()
        for watcher in watchers { watcher.cancel() }
        watchers = []
    }

    /// The engines changed: power and thermal readings.
    func update(_ fresh: PowerReadings) async {
        guard fresh != power else { return }
        power = fresh
        if netlink == nil { refreshNetwork() }
        await scheduler.setReadings(Self.readings(power, metered: metered.metered))
    }

    /// For `/metrics`: the queue by state, and the bytes moved since the daemon started.
    func metrics() async -> (states: [String: Int]?, bytes: Int64) {
        (await scheduler.countsByState(), await scheduler.bytesTransferred)
    }

    func reload(_ fresh: TransferSettings) async {
        settings = fresh
        refreshNetwork()
        await scheduler.reload(fresh, readings: Self.readings(power, metered: metered.metered))
    }

    private func networkManagerChanged(_ change: NetworkManagerClient.Change) async {
        switch change {
        case .metered(let value): networkManager = value
        case .ownerChanged(let present):
            networkManager = nil
            if present, let systemBus, let client = await NetworkManagerClient.find(on: systemBus) {
                networkManager = try? await client.metered()
            }
        }
        await networkChanged()
    }

    private func networkChanged() async {
        refreshNetwork()
        await scheduler.setReadings(Self.readings(power, metered: metered.metered))
    }

    private func refreshNetwork(announce: Bool = false) {
        let fresh = NetworkMeteredness.read(root: root, overrides: settings.meteredInterfaces, networkManager: networkManager)
        if fresh != metered || announce {
            log("transfers: network \(fresh.interface ?? "none") is \(fresh.metered ? "metered" : "unmetered") (\(fresh.source.rawValue))")
        }
        metered = fresh
    }
}
