/// What a resource report shows about a process beyond its CPU time: where each thread
/// waits (wchan, kernel stack), its executable and command line, its parent's name, and who
/// owns it. Reads `ROOT/proc` and `ROOT/etc/passwd`; ROOT is "/" live, or a fixture tree.
/// Every answer is nil when the process has gone or the kernel hides it.
public struct ProcessInspector: Sendable {
    public let root: String
    public let procfs: ProcFS

    public init(root: String = "/") {
        self.root = root
        procfs = ProcFS(root: root)
    }

    /// The kernel function a thread sleeps in (/proc/PID/task/TID/wchan).
    public func wchan(_ pid: Int32, thread: Int32) -> String? { procfs.wchan(pid, thread) }

    /// A thread's kernel stack, one frame per line (/proc/PID/task/TID/stack, root only).
    public func kernelStack(_ pid: Int32, thread: Int32) -> [String]? { procfs.kernelStack(pid, thread) }

    /// The executable (/proc/PID/exe).
    public func executablePath(_ pid: Int32) -> String? { procfs.executablePath(pid) }

    /// argv (/proc/PID/cmdline).
    public func commandLine(_ pid: Int32) -> [String]? { procfs.commandLine(pid) }

    /// A process's command name (comm).
    public func name(_ pid: Int32) -> String? { (try? procfs.stat(pid))??.comm }

    /// The user name of `uid` from the passwd file.
    public func userName(uid: UInt32) -> String? { SystemIdentity.userName(uid: uid, root: root) }
}
