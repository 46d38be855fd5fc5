#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: running a tool and reading what it printed

/// posix_spawn(3) with stdout and stderr on one pipe, for short-lived tools the session agent
/// asks (gsettings): unlike `joule run`'s fork through the shim, nothing needs to happen
/// between fork and exec, so posix_spawn's vfork path is enough.
extension Syscalls {
    /// Runs `executable` (argv `arguments`, environment "K=V") to its end, blocking the calling
    /// thread; its exit status (128 + signal when killed) and at most `limit` bytes of what it
    /// wrote to stdout and stderr together.
    static func runCapturing(
        executable: String, arguments: [String], environment: [String], limit: Int = 1 << 16
    ) throws(HardwareError) -> (status: Int32, output: [UInt8]) {
        let output = try pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, output.write, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The dispositions and mask joule changed (SIGPIPE ignored, SIGTERM taken by a signal
        // pipe) are not the tool's.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        _ = Glibc.close(output.write)
        defer { _ = Glibc.close(output.read) }
        guard status == 0 else { throw HardwareError(operation: "posix_spawn", path: executable, errno: Errno(status)) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(output.read, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            // Read on past the limit so a chatty tool never blocks on a full pipe.
            if bytes.count < limit { bytes += buffer[0..<min(n, limit - bytes.count)] }
        }
        switch waitForChild(pid) {
        case .exited(_, let code): return (code, bytes)
        case .signalled(_, let signal): return (128 + signal, bytes)
        case .none: return (127, bytes)
        }
    }
}
