// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Joule",
    products: [
        .executable(name: "joule", targets: ["joule"]),
        .library(name: "JouleWire", targets: ["JouleWire"]),
        .library(name: "JouleHardware", targets: ["JouleHardware"]),
        .library(name: "JouleEnergy", targets: ["JouleEnergy"]),
        .library(name: "JouleWorkloads", targets: ["JouleWorkloads"]),
        .library(name: "JouleLocation", targets: ["JouleLocation"]),
        .library(name: "JouleClient", targets: ["JouleClient"]),
        .library(name: "JouleHTTP", targets: ["JouleHTTP"]),
        .library(name: "JouleApplication", targets: ["JouleApplication"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-system", exact: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // Already resolved for async-http-client; named for NIOThreadPool (the downloader's fsyncs).
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        // The Prometheus registry and text format behind /metrics and `joule export`.
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        // RealModule: pow and exp without importing Glibc outside a gateway (already resolved
        // for swift-prometheus's dependencies).
        .package(url: "https://github.com/apple/swift-numerics", exact: "1.1.1"),
    ],
    targets: [
        // C libraries only: module maps and tiny shims, no logic.
        .systemLibrary(
            name: "CUdev", path: "CModules/CUdev",
            pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(
            name: "CBluetooth", path: "CModules/CBluetooth",
            pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(
            name: "CSystemd", path: "CModules/CSystemd",
            pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "CModules/CSQLite",
            pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CXCB", path: "CModules/CXCB",
            pkgConfig: "xcb-res", providers: [.apt(["libxcb1-dev", "libxcb-res0-dev"])]),
        // What Swift cannot import from sd-bus: the vtable macros.
        .target(name: "CSdBusShims", dependencies: ["CSystemd"], path: "CModules/CSdBusShims"),
        // What Swift cannot import (pidfd_open, pidfd_send_signal through syscall(2)).
        // CJouleShims also loads the system libcrypto for SHA-256 on first use (sha256.c):
        // NIOSSL's BoringSSL is not a product, and swift-crypto would build a second BoringSSL.
        .target(name: "CJouleShims", path: "CModules/CJouleShims"),
        // The layers, bottom up; scripts/check-layers.sh (make test) holds each module to
        // importing only what is below it. README "Layout" draws the graph.
        // The wire: what the daemon, its clients and apps say to each other (the lifecycle
        // codec, bus names, JSON), on the standard library and one lock.
        .target(name: "JouleWire"),
        // Readings as Sendable values; knows nothing of policy. Only Gateway/ calls C.
        .target(
            name: "JouleHardware",
            dependencies: [
                "JouleWire", "CUdev", "CBluetooth", "CSystemd", "CSdBusShims", "CJouleShims", "CSQLite", "CXCB",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The energy state: engines, thermal, power, Low Power Mode's knobs, energy, status.
        .target(
            name: "JouleEnergy",
            dependencies: ["JouleWire", "JouleHardware", .product(name: "RealModule", package: "swift-numerics")]),
        // Work the energy state governs: the CPU monitor, enforcement, reports, beacons, the
        // metrics seam, and the YAML config's reader.
        .target(
            name: "JouleWorkloads",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy",
                .product(name: "Yams", package: "Yams"), .product(name: "RealModule", package: "swift-numerics"),
            ]),
        // Location: gpsd TPV replay and fixed sources under the receiver model, one-shot and
        // standard updates (haversine through RealModule, not Glibc).
        .target(
            name: "JouleLocation",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", .product(name: "RealModule", package: "swift-numerics"),
            ]),
        // The app supervisor: lifecycle machine, suspension, budgets, the control socket.
        .target(name: "JouleApps", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads"]),
        // The session agent's engines: Low Power Mode in the desktop (journalled), notifications.
        .target(
            name: "JouleSession",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                .product(name: "Yams", package: "Yams"),
            ]),
        // The deferred-transfer queue and its scheduler; the HTTP is JouleHTTP's.
        .target(name: "JouleTransferQueue", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy"]),
        // History: the store, the timeline and its charts.
        .target(name: "JouleHistory", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads"]),
        // The process `joule daemon`: its D-Bus services and its clients of polkit, ppd, NM.
        .target(
            name: "JouleDaemon",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                "JouleHistory", "JouleLocation", .product(name: "Yams", package: "Yams"),
            ]),
        // Programs that ask the daemon (or, without one, read locally): DaemonClient,
        // TransfersClient, AppsClient, JouleProcessInfo, the Swift APIs. Never the daemon.
        .target(
            name: "JouleClient",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                "JouleHistory",
            ]),
        // Deferred transfers' HTTP (resumable downloads, retry policy). The only target that
        // imports AsyncHTTPClient, so the rest of the package does not build against NIO.
        .target(
            name: "JouleHTTP",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleTransferQueue",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Prometheus: the registry glue (swift-prometheus) and the /metrics endpoint (SwiftNIO's
        // HTTP/1). The daemon sees it only through JouleWorkloads' MetricsExporter, injected by
        // `joule`, so the daemon does not build against NIO.
        .target(
            name: "JouleMetrics",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleTransferQueue",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Argument parsing and printing only.
        .executableTarget(
            name: "joule",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                "JouleHistory", "JouleDaemon", "JouleClient", "JouleHTTP", "JouleMetrics", "JouleLocation", "JouleSession",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // In-process timings for scripts/bench.py (`make bench`); not part of `joule`.
        .executableTarget(name: "joule-bench", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleHTTP"]),
        // What an app links to hear its lifecycle: the wire, nothing else of Joule's, no C libraries.
        .target(name: "JouleApplication", dependencies: ["JouleWire"]),
        // Test doubles (manual clock, recording HCI transport, fake /proc trees), kept out of
        // the libraries as NIOEmbedded is.
        .target(
            name: "JouleTesting",
            dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleTransferQueue", "JouleHistory", "CJouleShims"]),
        // A stand-in org.joule.Energy1, for the client tests; apart so the lower tests do not link the daemon.
        .target(name: "JouleDaemonTesting", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleDaemon", "JouleTesting"]),
        // One test target per module.
        .testTarget(name: "JouleWireTests", dependencies: ["JouleWire"]),
        .testTarget(name: "JouleHardwareTests", dependencies: ["JouleWire", "JouleHardware", "JouleTesting"]),
        .testTarget(name: "JouleEnergyTests", dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleTesting"]),
        .testTarget(
            name: "JouleWorkloadsTests",
            dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleTesting"]),
        .testTarget(
            name: "JouleLocationTests",
            dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleLocation"]),
        .testTarget(
            name: "JouleAppsTests",
            dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTesting"]),
        .testTarget(
            name: "JouleTransferQueueTests",
            dependencies: ["JouleWire", "JouleHardware", "JouleEnergy", "JouleTransferQueue", "JouleTesting"]),
        .testTarget(
            name: "JouleHistoryTests",
            // The queue too: history shared its file with it, and is migrated out of it.
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleTransferQueue", "JouleHistory",
                "JouleTesting",
            ]),
        .testTarget(
            name: "JouleDaemonTests",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                "JouleHistory", "JouleDaemon", "JouleTesting",
            ]),
        // The clients against a real daemon object on a private bus (a test may link both).
        .testTarget(
            name: "JouleClientTests",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps", "JouleTransferQueue",
                "JouleHistory", "JouleClient", "JouleDaemon", "JouleDaemonTesting", "JouleTesting",
            ]),
        // Against Tests/Support/fault_http_server.py, a local server with injected faults.
        .testTarget(
            name: "JouleHTTPTests",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleTransferQueue", "JouleHTTP", "JouleTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // The exposition against fixed samples, and the endpoint over a real socket.
        .testTarget(
            name: "JouleMetricsTests",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleTransferQueue", "JouleMetrics",
                "JouleTesting",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The session engines against real dconf, gsettings and dbusmock on a private bus.
        .testTarget(
            name: "JouleSessionTests",
            dependencies: [
                "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleTransferQueue", "JouleSession", "JouleTesting",
                "JouleDaemonTesting",
            ]),
        .testTarget(name: "JouleApplicationTests", dependencies: ["JouleWire", "JouleApplication"]),
        // Runs the built `joule` binary against fixtures, with and without umockdev, against an
        // org.joule.Energy1 exported on a private bus, and `joule daemon` itself.
        .testTarget(
            name: "JouleEndToEndTests",
            dependencies: [
                "joule", "JouleWire", "JouleHardware", "JouleEnergy", "JouleWorkloads", "JouleApps",
                "JouleTransferQueue", "JouleHistory", "JouleDaemon", "JouleClient", "JouleApplication", "JouleTesting",
                "JouleDaemonTesting", "JouleLocation", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
    ]
)
