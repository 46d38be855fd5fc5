import JouleHardware

/// Decides whether a process matches selectors, for every engine that picks processes (the
/// CPU monitor's `--pid/--uid/--cgroup/--match`, enforce's `process`, `processRegex` and
/// `commandRegex`). Within one kind the values are alternatives; kinds combine like pgrep's
/// criteria. What is costly to read (the owner, argv, the cgroup) is asked for only when a
/// criterion needs it.
public struct ProcessMatcher {
    /// How a name or pattern is compared.
    public enum Pattern {
        /// comm exactly; the kernel cuts comm to 15 bytes, so a longer name matches a comm
        /// equal to its first 15 bytes whose argv[0] base name is the name.
        case name(String)
        /// A regular expression searched in comm.
        case commRegex(Regex<AnyRegexOutput>)
        /// A regular expression searched in the arguments joined by spaces.
        case commandRegex(Regex<AnyRegexOutput>)
        /// A regular expression searched in comm, then in the command line.
        case commOrCommandRegex(Regex<AnyRegexOutput>)
    }

    /// What a matcher may ask about a candidate.
    public struct Candidate {
        public var pid: Int32
        public var comm: String
        public var uid: () -> UInt32?
        public var commandLine: () -> [String]?
        public var cgroup: () -> String?

        public init(
            pid: Int32, comm: String, uid: @escaping () -> UInt32? = { nil },
            commandLine: @escaping () -> [String]? = { nil }, cgroup: @escaping () -> String? = { nil }
        ) {
            self.pid = pid
            self.comm = comm
            self.uid = uid
            self.commandLine = commandLine
            self.cgroup = cgroup
        }
    }

    public var pids: Set<Int32>
    public var uids: Set<UInt32>
    /// A process in one of these cgroups or below.
    public var cgroups: [CgroupPath]
    public var patterns: [Pattern]

    public init(pids: Set<Int32> = [], uids: Set<UInt32> = [], cgroups: [CgroupPath] = [], patterns: [Pattern] = []) {
        self.pids = pids
        self.uids = uids
        self.cgroups = cgroups
        self.patterns = patterns
    }

    /// Compiles a regular expression, or says why it does not compile.
    public static func compile(_ pattern: String) -> Result<Regex<AnyRegexOutput>, ProcessMatcherError> {
        do {
            return .success(try Regex(pattern))
        } catch {
            return .failure(ProcessMatcherError(pattern: pattern, reason: "\(error)"))
        }
    }

    /// Whether the patterns need the command line at all.
    public var needsCommandLine: Bool {
        patterns.contains { if case .commRegex = $0 { false } else { true } }
    }

    public func matches(_ candidate: Candidate) -> Bool {
        if !pids.isEmpty && !pids.contains(candidate.pid) { return false }
        if !uids.isEmpty {
            guard let uid = candidate.uid(), uids.contains(uid) else { return false }
        }
        if !cgroups.isEmpty && matchingCgroup(candidate.cgroup()) == nil { return false }
        if !patterns.isEmpty {
            var commandLine: [String]??
            func arguments() -> [String]? {
                if let commandLine { return commandLine }
                let read = candidate.commandLine()
                commandLine = .some(read)
                return read
            }
            return patterns.contains { Self.matches($0, comm: candidate.comm, arguments: arguments) }
        }
        return true
    }

    /// The deepest selected cgroup that holds `cgroup`, if any.
    public func matchingCgroup(_ cgroup: String?) -> CgroupPath? {
        guard let cgroup else { return nil }
        let path = CgroupPath(cgroup)
        return cgroups.filter { $0.contains(path) }.max { $0.components.count < $1.components.count }
    }

    private static func matches(_ pattern: Pattern, comm: String, arguments: () -> [String]?) -> Bool {
        switch pattern {
        case .name(let name):
            if comm == name { return true }
            let limit = 15
            guard name.utf8.count > limit, comm.utf8.count == limit, name.utf8.starts(with: comm.utf8),
                  let first = arguments()?.first
            else { return false }
            let base = first.split(separator: "/").last.map(String.init) ?? first
            return base == name
        case .commRegex(let regex):
            return search(regex, comm)
        case .commandRegex(let regex):
            guard let arguments = arguments(), !arguments.isEmpty else { return false }
            return search(regex, arguments.joined(separator: " "))
        case .commOrCommandRegex(let regex):
            return search(regex, comm) || arguments().map { search(regex, $0.joined(separator: " ")) } == true
        }
    }

    private static func search(_ regex: Regex<AnyRegexOutput>, _ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
