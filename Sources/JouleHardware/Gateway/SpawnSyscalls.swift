#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims

// MARK: spawning

/// fork/exec through the C shim, waitpid(2) and the subreaper flag, for `joule run`.
extension Syscalls {
    /// Why a command could not start: which step failed and the errno.
    struct SpawnFailure: Error, Sendable {
        let step: String
        let errno: Errno
    }

    /// The executable `command` names: itself when it has a slash, else the first executable
    /// file of that name on `path` (the parent's PATH), as execvp would pick. Resolved before
    /// fork because the search allocates. Nil when there is none.
    static func resolveExecutable(_ command: String, path: String?) -> String? {
        if command.contains("/") { return command }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + command
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Forks `executable` with `arguments` (argv, including argv[0]) and `environment`
    /// ("K=V"), first joining the cgroup whose `cgroup.procs` is `cgroupProcs`, and, when
    /// `gate` is given, waiting for one byte on it before exec. Returns the PID and the read
    /// end of the report pipe (see `readSpawnReport`). With `account`, the child becomes that
    /// user (its groups, gid and uid) and changes to `directory` before exec.
    static func spawn(
        executable: String, arguments: [String], environment: [String],
        cgroupProcs: String?, gate: (read: Int32, write: Int32)?,
        account: UserAccount? = nil, directory: String? = nil
    ) throws(HardwareError) -> (pid: Int32, report: Int32) {
        var procsFD: Int32 = -1
        if let cgroupProcs {
            procsFD = Glibc.open(cgroupProcs, O_WRONLY | O_CLOEXEC)
            guard procsFD >= 0 else { throw HardwareError(operation: "open", path: cgroupProcs, errno: .current) }
        }
        defer { if procsFD >= 0 { _ = Glibc.close(procsFD) } }
        let report: (read: Int32, write: Int32)
        report = try pipe()
        // Every C string is made before fork: the child may not allocate.
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The dispositions joule changed and an app expects at their defaults.
        let reset: [Int32] = [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD]
        let groups = (account?.groups ?? []).map { gid_t($0) }
        let pid = executable.withCString { file in
            reset.withUnsafeBufferPointer { signals in
                groups.withUnsafeBufferPointer { groupList in
                    withOptionalCString(directory) { directoryPointer in
                        joule_spawn(file, argv, envp, procsFD, gate?.read ?? -1, gate?.write ?? -1, report.write,
                                    signals.baseAddress, Int32(signals.count),
                                    account.map { uid_t($0.uid) } ?? uid_t.max, account.map { gid_t($0.gid) } ?? gid_t.max,
                                    groupList.baseAddress, Int32(groupList.count), directoryPointer)
                    }
                }
            }
        }
        _ = Glibc.close(report.write)
        guard pid > 0 else {
            let failure = Errno.current
            _ = Glibc.close(report.read)
            throw HardwareError(operation: "fork", path: executable, errno: failure)
        }
        return (pid, report.read)
    }

    /// `body` with `text` as a C string, or with nil.
    static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }

    /// Blocks until the child execs (EOF: nil) or reports the errno of its failure; closes
    /// the pipe.
    static func readSpawnReport(_ fd: Int32) -> Errno? {
        defer { _ = Glibc.close(fd) }
        var code: Int32 = 0
        while true {
            let n = withUnsafeMutableBytes(of: &code) { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            return n == MemoryLayout<Int32>.size ? Errno(code) : nil
        }
    }

    /// How a waited-for process ended.
    enum WaitResult: Sendable {
        case exited(pid: Int32, status: Int32)
        case signalled(pid: Int32, signal: Int32)
        /// No children left (ECHILD).
        case none
    }

    /// waitpid(2) for `pid` (-1: any child), blocking, resuming after signals; stopped and
    /// continued children are not reported.
    static func waitForChild(_ pid: Int32) -> WaitResult {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, 0)
            if reaped < 0 {
                if errno == EINTR { continue }
                return .none
            }
            // WIFEXITED / WIFSIGNALED, written out: the C macros are not imported.
            let low = status & 0x7f
            if low == 0 { return .exited(pid: reaped, status: (status >> 8) & 0xff) }
            if low != 0x7f { return .signalled(pid: reaped, signal: low) }
        }
    }

    static func setChildSubreaper() throws(HardwareError) {
        guard joule_set_child_subreaper() == 0 else {
            throw HardwareError(operation: "prctl(PR_SET_CHILD_SUBREAPER)", path: "self", errno: .current)
        }
    }

    /// kill(2) to a child not yet waited for (its PID cannot have been reused).
    static func signalChild(_ pid: Int32, _ signal: Int32) { _ = Glibc.kill(pid, signal) }
}
