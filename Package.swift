// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Joule",
    products: [
        .executable(name: "joule", targets: ["joule"]),
        .library(name: "JouleHardware", targets: ["JouleHardware"]),
        .library(name: "JoulePolicy", targets: ["JoulePolicy"]),
        .library(name: "JouleTransfers", targets: ["JouleTransfers"]),
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
        // What Swift cannot import from sd-bus: the vtable macros.
        .target(name: "CSdBusShims", dependencies: ["CSystemd"], path: "CModules/CSdBusShims"),
        // What Swift cannot import (pidfd_open, pidfd_send_signal through syscall(2)).
        // CJouleShims also loads the system libcrypto for SHA-256 on first use (sha256.c):
        // NIOSSL's BoringSSL is not a product, and swift-crypto would build a second BoringSSL.
        .target(name: "CJouleShims", path: "CModules/CJouleShims"),
        // Readings as Sendable values; knows nothing of policy. Only Gateway/ calls C.
        .target(
            name: "JouleHardware",
            dependencies: [
                "CUdev", "CBluetooth", "CSystemd", "CSdBusShims", "CJouleShims", "CSQLite",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // State engines and enforcement; never touches a file descriptor or C pointer itself.
        .target(
            name: "JoulePolicy",
            dependencies: ["JouleHardware", .product(name: "Yams", package: "Yams")]),
        // Deferred transfers' HTTP (resumable downloads, retry policy). The only target that
        // imports AsyncHTTPClient, so the rest of the package does not build against NIO.
        .target(
            name: "JouleTransfers",
            dependencies: [
                "JoulePolicy", "JouleHardware",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // Prometheus: the registry glue (swift-prometheus) and the /metrics endpoint (SwiftNIO's
        // HTTP/1). The daemon sees it only through JoulePolicy's MetricsExporter, injected by
        // `joule`, so JoulePolicy still does not build against NIO.
        .target(
            name: "JouleMetrics",
            dependencies: [
                "JoulePolicy", "JouleHardware",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Argument parsing and printing only.
        .executableTarget(
            name: "joule",
            dependencies: [
                "JoulePolicy", "JouleTransfers", "JouleMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // In-process timings for scripts/bench.py (`make bench`); not part of `joule`.
        .executableTarget(name: "joule-bench", dependencies: ["JouleHardware", "JoulePolicy", "JouleTransfers"]),
        // Test doubles (manual clock, recording HCI transport, fake /proc trees), kept out of
        // the libraries as NIOEmbedded is.
        // What an app links to hear its lifecycle: nothing of Joule's own, no C libraries.
        .target(name: "JouleApplication"),
        .target(name: "JouleTesting", dependencies: ["JoulePolicy", "JouleHardware"]),
        .testTarget(name: "JouleHardwareTests", dependencies: ["JouleHardware", "JouleTesting"]),
        .testTarget(name: "JoulePolicyTests", dependencies: ["JoulePolicy", "JouleTesting"]),
        // Against Tests/Support/fault_http_server.py, a local server with injected faults.
        .testTarget(name: "JouleTransfersTests", dependencies: ["JouleTransfers", "JoulePolicy", "JouleTesting"]),
        // The exposition against fixed samples, and the endpoint over a real socket.
        .testTarget(
            name: "JouleMetricsTests",
            dependencies: [
                "JouleMetrics", "JoulePolicy", "JouleHardware", "JouleTesting",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // Runs the built `joule` binary against fixtures, with and without umockdev, against an
        // org.joule.Energy1 exported on a private bus, and `joule daemon` itself.
        .testTarget(name: "JouleApplicationTests", dependencies: ["JouleApplication"]),
        .testTarget(name: "JouleCLITests", dependencies: ["joule", "JouleTesting", "JoulePolicy", "JouleHardware", "JouleApplication"]),
    ]
)
