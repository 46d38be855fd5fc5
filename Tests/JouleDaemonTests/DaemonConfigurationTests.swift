import Foundation
@testable import JouleHardware
import JouleApps
@testable import JouleEnergy
@testable import JouleWorkloads
@testable import JouleTransferQueue
@testable import JouleDaemon
import Testing

/// The daemon's YAML config: defaults, every key, and errors that name file:line:column: key.
struct DaemonConfigurationTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func failure(_ yaml: String) -> String? {
        do {
            _ = try DaemonConfiguration.parse(yaml: yaml, file: "joule.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    /// The shipped example sets exactly the defaults.
    @Test func theExampleConfigIsTheDefaults() throws {
        let path = Self.packageRoot.appendingPathComponent("dist/joule.yaml.example").path
        var loaded = try DaemonConfiguration.load(path: path)
        #expect(loaded.file == path)
        loaded.file = nil
        #expect(loaded == DaemonConfiguration())
    }

    /// `battery.chargeLimit`: start and end, end alone, off, and nothing.
    @Test func theChargeLimitIsRead() throws {
        func limit(_ yaml: String) throws -> ChargeLimitRequest? {
            try DaemonConfiguration.parse(yaml: yaml, file: "joule.yaml").chargeLimit
        }
        #expect(try limit("battery:\n  chargeLimit: {start: 75, end: 80}\n") == ChargeLimitRequest(start: 75, end: 80))
        #expect(try limit("battery:\n  chargeLimit:\n    end: 60\n") == ChargeLimitRequest(start: nil, end: 60))
        #expect(try limit("battery:\n  chargeLimit: off\n") == .off)
        #expect(try limit("battery:\n  chargeLimit:\n") == nil)
        #expect(try limit("battery: {}\n") == nil)
        #expect(try limit("metrics: {}\n") == nil)
    }

    /// Every `transfers:` key by its binding name.
    @Test func everyTransfersKeyIsRead() throws {
        let yaml = """
            transfers:
              retryInitial: 1
              retryMax: 60
              retryJitter: 0
              retryAfterMin: 2
              retryAfterMax: 90
              maxRedirects: 2
              maxAttemptsWithoutProgress: 3
              throughputFloor: 10
              throughputWindow: 0.5
              maxConcurrent: 1
              defaultTimeout: 3600
              meteredInterfaces:
                wlan1: true
                wwan0: false
            """
        let settings = try DaemonConfiguration.parse(yaml: yaml, file: "joule.yaml").transfers
        let tuning = TransferTuning(
            retryInitial: .seconds(1), retryMax: .seconds(60), retryJitter: 0, retryAfterMin: .seconds(2),
            retryAfterMax: .seconds(90), maxRedirects: 2, maxAttemptsWithoutProgress: 3, throughputFloor: 10,
            throughputWindow: .milliseconds(500))
        #expect(settings.tuning == tuning)
        #expect(settings.maxConcurrent == 1)
        #expect(settings.defaultTimeout == 3600)
        #expect(settings.meteredInterfaces == ["wlan1": true, "wwan0": false])
    }

    @Test func aMissingFileIsTheDefaults() throws {
        #expect(try DaemonConfiguration.load(path: "/nonexistent/joule.yaml") == DaemonConfiguration())
        #expect(try DaemonConfiguration.parse(yaml: "", file: "empty.yaml").file == "empty.yaml")
    }

    @Test func everyKeyIsRead() throws {
        let yaml = """
            lowPowerMode:
              lowPowerAt: 30
              lowPowerOffAt: 90
              warningLevels: [25, 10, 3]
              actuators: [knobs]
              knobs:
                turbo: false
                maxFrequencyPercent: 50
                usbAutosuspend: true
                extra:
                  /sys/module/snd_hda_intel/parameters/power_save: "1"
            enforce:
              classes:
                builds:
                  level: deferrable
                  match:
                    - process: cc1
            cpuMonitor:
              - match: [chromium, "^node$"]
                uid: 1000
                limit: 50
                window: 30
                action: throttle
            beacons:
              - regions: ["door=F7826DA6-4FA2-4E98-8024-BC5B71E0893E:1:2"]
                exitTimeout: 20
                exec: /usr/local/bin/door-hook
                adapter: hci1
                transport: bluez
            transfers: {}
            apps:
            metrics:
              enabled: true
              listen: "[::1]:9100"
            """
        let config = try DaemonConfiguration.parse(yaml: yaml, file: "joule.yaml")
        #expect(config.power.lowPercent == 30)
        #expect(config.power.restorePercent == 90)
        #expect(config.power.warningLowPercent == 25 && config.power.warningCriticalPercent == 10 && config.power.warningActionPercent == 3)
        #expect(config.actuators == [.knobs])
        #expect(config.knobs.turbo == false && config.knobs.maxFrequencyPercent == 50 && config.knobs.usbAutosuspend)
        #expect(config.knobs.extra == [ExtraKnob(path: "/sys/module/snd_hda_intel/parameters/power_save", value: "1")])
        #expect(config.enforce?.classes.map(\.name) == ["builds"])
        #expect(config.cpuMonitor.count == 1)
        #expect(config.cpuMonitor[0].configuration.selectors.patterns == ["chromium", "^node$"])
        #expect(config.cpuMonitor[0].configuration.selectors.uids == [1000])
        #expect(config.cpuMonitor[0].configuration.action == .throttle)
        #expect(config.cpuMonitor[0].configuration.window == .seconds(30))
        #expect(config.beacons.count == 1)
        #expect(config.beacons[0].regions.first?.name == "door")
        #expect(config.beacons[0].regions.first?.identity == .proximity(uuid: BeaconUUID("F7826DA6-4FA2-4E98-8024-BC5B71E0893E")!, major: 1, minor: 2))
        #expect(config.beacons[0].exitTimeout == .seconds(20))
        #expect(config.beacons[0].adapter == "hci1")
        #expect(config.beacons[0].transport == .bluez)
        #expect(config.metrics == MetricsSettings(enabled: true, listen: MetricsAddress(host: "::1", port: 9100)))
        #expect(try DaemonConfiguration.parse(yaml: "metrics: {enabled: true}\n", file: "joule.yaml").metrics.listen == .defaultListen)
    }

    /// `enforce: {policy: FILE}` is read relative to the config's directory.
    @Test func enforcePolicyFileRelativeToTheConfig() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "classes:\n  video:\n    match:\n      - process: ffmpeg\n".write(
            to: directory.appendingPathComponent("enforce.yaml"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("joule.yaml")
        try "enforce:\n  policy: enforce.yaml\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(try DaemonConfiguration.load(path: config.path).enforce?.classes.map(\.name) == ["video"])
        try "enforce:\n  policy: missing.yaml\n".write(to: config, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.load(path: config.path) }
    }

    @Test func desktopAppsAreReadWithTheirLimits() throws {
        let config = try DaemonConfiguration.parse(
            yaml: "apps:\n  - id: org.mozilla.firefox\n    grace: 10\n    backgroundBudget: 60\n    cpuLimit: 50\n    suspend: false\n  - id: org.gnome.Calculator\n",
            file: "joule.yaml")
        #expect(config.apps.map(\.id) == ["org.mozilla.firefox", "org.gnome.Calculator"])
        let firefox = config.apps[0].configuration
        #expect(firefox.grace == .seconds(10) && firefox.backgroundBudget == .seconds(60) && firefox.cpuLimitPercent == 50 && !firefox.suspends)
        #expect(config.apps[1].configuration == AppLifecycleMachine.Configuration())
    }

    @Test(arguments: [
        ("colour: blue\n", "joule.yaml:1:1: colour: unknown key (expected lowPowerMode, enforce, cpuMonitor, beacons, transfers, apps, metrics, battery, location, regions)"),
        ("location:\n  source: \"replay:/tmp/x\"\n", "joule.yaml:2:11: location.source: a replay runs on its own time, not the daemon's: use auto, gpsd, geoclue or fixed:LAT,LON[,ACCURACY]"),
        ("location:\n  gpsd: \"host:99999\"\n", "joule.yaml:2:9: location.gpsd: "),
        ("regions:\n  - region: \"home=1,2,0\"\n", "joule.yaml:2:13: regions[0].region: --region home=1,2,0: "),
        ("regions:\n  - exec: \"true\"\n", "joule.yaml:2:5: regions[0].region: missing"),
        ("location:\n  accuracy: 0\n", "joule.yaml:2:13: location.accuracy: expected a number from 1 to 1000000, found \"0\""),
        ("lowPowerMode:\n  lowPowerAt: lots\n", "joule.yaml:2:15: lowPowerMode.lowPowerAt: expected a number from 0 to 100, found \"lots\""),
        ("lowPowerMode:\n  lowPowerAt: 50\n  lowPowerOffAt: 40\n", "joule.yaml:3:18: lowPowerMode.lowPowerOffAt: must be above lowPowerAt (50)"),
        ("lowPowerMode:\n  warningLevels: 5,20,2\n", "joule.yaml:2:18: lowPowerMode.warningLevels: expected three percentages"),
        ("lowPowerMode:\n  knobs:\n    turbo: maybe\n", "joule.yaml:3:12: lowPowerMode.knobs.turbo: expected true or false, found \"maybe\""),
        ("lowPowerMode:\n  knobs:\n    extra:\n      /etc/passwd: x\n", "joule.yaml:4:7: lowPowerMode.knobs.extra./etc/passwd: extra knobs are files under /sys or /proc/sys"),
        ("enforce:\n  classes:\n    a:\n      level: urgent\n      match:\n        - process: x\n", "joule.yaml:4:14: enforce.classes.a.level: unknown level"),
        ("cpuMonitor:\n  - limit: 50\n", "joule.yaml:2:5: cpuMonitor[0]: choose what to watch"),
        ("cpuMonitor:\n  - match: ['(']\n", "joule.yaml:2:13: cpuMonitor[0].match: not a valid regular expression"),
        ("beacons:\n  - exec: /bin/true\n", "joule.yaml:2:5: beacons[0]: missing key `regions`"),
        ("beacons:\n  - regions: [door=nope]\n", "joule.yaml:2:14: beacons[0].regions:"),
        ("beacons:\n  - regions: [F7826DA6-4FA2-4E98-8024-BC5B71E0893E]\n    transport: dbus\n", "joule.yaml:3:16: beacons[0].transport: expected auto, hci or bluez, found \"dbus\""),
        ("lowPowerMode: [\n", "joule.yaml:2:1: not valid YAML"),
        ("metrics: 3\n", "joule.yaml:1:10: metrics: expected a mapping"),
        ("metrics:\n  enabled: yes please\n", "joule.yaml:2:12: metrics.enabled: expected true or false"),
        ("metrics:\n  listen: localhost:9747\n", "joule.yaml:2:11: metrics.listen: \"localhost\" is not an IP address"),
        ("metrics:\n  listen: \"127.0.0.1:99999\"\n", "joule.yaml:2:11: metrics.listen: \"99999\" is not a TCP port"),
        ("metrics:\n  port: 9747\n", "joule.yaml:2:3: metrics.port: unknown key"),
        ("transfers:\n  retryInitial: soon\n", "joule.yaml:2:17: transfers.retryInitial: expected a number"),
        ("transfers:\n  maxConcurrent: 0\n", "joule.yaml:2:18: transfers.maxConcurrent: expected a number from 1 to 64"),
        ("transfers:\n  retryJitter: 2\n", "joule.yaml:2:16: transfers.retryJitter: expected a number from 0 to 0.9"),
        ("transfers:\n  meteredInterfaces:\n    wlan0: sometimes\n", "joule.yaml:3:12: transfers.meteredInterfaces.wlan0: expected true or false"),
        ("transfers:\n  retryInitial: 60\n  retryMax: 30\n", "joule.yaml:2:3: transfers.retryMax: must be at least retryInitial"),
        ("transfers:\n  speed: 3\n", "joule.yaml:2:3: transfers.speed: unknown key"),
        ("battery:\n  chargeLimit:\n    start: 75\n", "joule.yaml:3:5: battery.chargeLimit: missing key `end`"),
        ("battery:\n  chargeLimit:\n    end: 120\n", "joule.yaml:3:10: battery.chargeLimit.end: expected a number from 0 to 100, found \"120\""),
        ("battery:\n  chargeLimit:\n    start: 80\n    end: 75\n", "joule.yaml:4:10: battery.chargeLimit: charge limit start (80) must be below its end (75)"),
        ("battery:\n  chargeLimit:\n    end: 79.5\n", "joule.yaml:3:10: battery.chargeLimit.end: expected a whole percentage, found 79.5"),
        ("battery:\n  chargeLimit:\n    end: 0\n", "joule.yaml:3:10: battery.chargeLimit: charge limit end must be 1-100 %, not 0"),
        ("battery:\n  chargeLimit: sometimes\n", "joule.yaml:2:16: battery.chargeLimit: expected {start: START, end: END} or off, found \"sometimes\""),
        ("battery:\n  chargeLimit:\n    stop: 80\n", "joule.yaml:3:5: battery.chargeLimit.stop: unknown key"),
        ("battery:\n  optimizedCharging: sometimes\n", "joule.yaml:2:22: battery.optimizedCharging: expected true or false"),
        ("apps:\n  - grace: 5\n", "joule.yaml:2:5: apps[0]: missing key `id`"),
        ("apps:\n  - id: a b\n", "joule.yaml:2:9: apps[0].id: expected an application ID such as org.mozilla.firefox"),
        ("apps:\n  - id: x\n  - id: x\n", "joule.yaml:3:9: apps[1].id: x is listed twice"),
        ("apps:\n  - id: x\n    cpuLimit: 0\n", "joule.yaml:3:15: apps[0].cpuLimit: must be above 0"),
        ("apps:\n  - id: x\n    colour: red\n", "joule.yaml:3:5: apps[0].colour: unknown key"),
        ("apps: {id: x}\n", "joule.yaml:1:7: apps: expected a list"),
    ])
    func errorsNameFileLineColumnAndKey(_ yaml: String, _ expected: String) {
        let message = Self.failure(yaml)
        #expect(message?.hasPrefix(expected) == true, "got \(message ?? "no error")")
    }
}
