import Foundation

/// busctl as the unprivileged user nobody (65534, through util-linux `setpriv`), for tests of
/// what the daemon's D-Bus objects refuse another user. Only as root, with both tools present.
enum NobodyBusctl {
    static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/busctl")
    }

    /// `busctl --address=ADDRESS call DESTINATION PATH INTERFACE ARGUMENTS…`, stdout and stderr
    /// together. The bus's directory must let nobody reach its socket (chmod 0755).
    static func call(address: String, _ destination: String, _ path: String, _ interface: String, _ arguments: [String])
        async throws -> (status: Int32, output: String)
    {
        try await DaemonCLITests.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/busctl",
                                                    "--address=\(address)", "call", destination, path, interface] + arguments)
    }
}
