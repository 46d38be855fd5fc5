import Foundation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32's matrix over every command of the README's table: each bad option value, missing
/// path, file where a directory belongs (and the reverse), unreadable file, unknown pid,
/// cgroup or name, in both `--opt value` and `--opt=value` forms. Every row asserts the exit
/// code of the one rule (2: the user's input), the exact first line of stderr, and that
/// nothing ran or changed: no output, no file in the state or runtime directory, and no
/// program started (`joule run` would touch `{T}/RAN`).
struct CommandRow: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var status: Int32
    /// The exact first line of stderr, with `{T}` for the row's sandbox directory.
    var firstLine: String
    /// Run as nobody (through setpriv), for mode-000 rows: root reads any file.
    var asNobody = false

    var testDescription: String { arguments.joined(separator: " ") }

    init(_ arguments: [String], _ firstLine: String, status: Int32 = 2, asNobody: Bool = false) {
        self.arguments = arguments
        self.status = status
        self.firstLine = firstLine
        self.asNobody = asNobody
    }
}

@Suite struct CommandMatrixTests {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let fixtures = CLIHarness.fixturesDirectory.path
    static let missing = "/nonexistent/joule-matrix"

    /// The sandbox: `dir/`, `file`, `locked` (mode 000), `locked-dir/` (mode 000), `bad.btsnoop`
    /// (8 bytes), `bad.yaml` (not YAML), `state/` and `rt/` (JOULE_STATE_DIR, JOULE_RUNTIME_DIR).
    static func sandbox() throws -> URL {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("joule-cmdmatrix-\(UUID().uuidString)")
        let manager = FileManager.default
        // rt/apps is there already: joule run makes it (its runtime directory) before it knows
        // whether the program starts, as a runtime directory it keeps.
        for directory in ["dir", "state", "rt/apps", "locked-dir", "tree/sys/class", "tree/proc", "hist", "hist-locked", "hist-legacy"] {
            try manager.createDirectory(at: t.appendingPathComponent(directory), withIntermediateDirectories: true)
        }
        try Data("x\n".utf8).write(to: t.appendingPathComponent("file"))
        try Data("secret\n".utf8).write(to: t.appendingPathComponent("locked"))
        try Data("btsnoo\0\0".utf8).write(to: t.appendingPathComponent("bad.btsnoop"))
        try Data("classes: [unclosed\n".utf8).write(to: t.appendingPathComponent("bad.yaml"))
        try Data("not a database at all\n".utf8).write(to: t.appendingPathComponent("hist/history.db"))
        try Data("SQLite format 3\u{0}".utf8).write(to: t.appendingPathComponent("hist-locked/history.db"))
        chmod(t.appendingPathComponent("hist-locked/history.db").path, 0)
        // No history.db: an older joule's transfers.db is read instead, and named when it fails.
        try Data("not a database at all\n".utf8).write(to: t.appendingPathComponent("hist-legacy/transfers.db"))
        for directory in ["hist", "hist-locked", "hist-legacy"] { chmod(t.appendingPathComponent(directory).path, 0o755) }
        chmod(t.appendingPathComponent("locked").path, 0)
        chmod(t.appendingPathComponent("locked-dir").path, 0)
        chmod(t.appendingPathComponent("tree").path, 0o755)
        chmod(t.appendingPathComponent("tree/proc").path, 0o755)
        chmod(t.appendingPathComponent("tree/sys").path, 0)
        // nobody reaches the sandbox and may write its state and runtime directories; the rest
        // stays root's alone, so root trusts the files in it (FileTrust).
        chmod(t.path, 0o755)
        chmod(t.path + "/dir", 0o755)
        for path in ["/state", "/rt", "/rt/apps"] { chmod(t.path + path, 0o777) }
        return t
    }

    /// Every file under `root` with its size and mode, to prove a refused run changed nothing.
    static func listing(_ root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var entries: [String] = []
        for case let path as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            entries.append("\(path) \(attributes?[.size] ?? 0) \(attributes?[.posixPermissions] ?? 0)")
        }
        return entries.sorted()
    }

    static let rows: [CommandRow] = [
        // status
        CommandRow(["status", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["status", "--root=\(missing)"], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["status", "--root", "{T}/file"], "joule: cannot read root {T}/file: Not a directory (ENOTDIR)"),
        CommandRow(["status", "--json", "--root", fixtures],
                   "joule: root \(fixtures) holds neither sys/ nor proc/: not a machine's tree (a fixture such as hw-fixtures/NAME holds them)"),
        CommandRow(["status", "--root", "{T}/locked-dir"], "joule: cannot read root {T}/locked-dir: Permission denied (EACCES)", asNobody: true),
        CommandRow(["status", "--root", "{T}/tree"], "joule: cannot read root {T}/tree: {T}/tree/sys: Permission denied (EACCES)", asNobody: true),
        CommandRow(["devices", "power_supply", "--root={T}/tree"], "joule: cannot read root {T}/tree: {T}/tree/sys: Permission denied (EACCES)", asNobody: true),
        CommandRow(["status", "--bogus"], "Error: Unknown option '--bogus'"),
        CommandRow(["status", "--root"], "Error: Missing value for '--root <dir>'"),
        // watch
        CommandRow(["watch", "--interval", "-1"], "Error: --interval must be between 0.05 and 86400 seconds, not -1.0"),
        CommandRow(["watch", "--interval=-1"], "Error: --interval must be between 0.05 and 86400 seconds, not -1.0"),
        CommandRow(["watch", "--interval", "nan"], "Error: --interval must be between 0.05 and 86400 seconds, not nan"),
        CommandRow(["watch", "--interval=inf"], "Error: --interval must be between 0.05 and 86400 seconds, not inf"),
        CommandRow(["watch", "--interval", "abc"], "Error: The value 'abc' is invalid for '--interval <s>'"),
        CommandRow(["watch", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["watch", "--root={T}/file"], "joule: cannot read root {T}/file: Not a directory (ENOTDIR)"),
        CommandRow(["watch", "--low-power-at", "-5"], "Error: --low-power-at and --low-power-off-at must be percentages with off-at above at"),
        CommandRow(["watch", "--low-power-at=150"], "Error: --low-power-at and --low-power-off-at must be percentages with off-at above at"),
        CommandRow(["watch", "--warning-levels", "garbage"], "Error: --warning-levels must be three percentages, low ≥ critical ≥ action, like 20,5,2"),
        CommandRow(["watch", "--exec", ""], "Error: --exec needs a command"),
        // top
        CommandRow(["top", "--interval", "-1"], "Error: --interval must be between 0.05 and 86400 seconds, not -1.0"),
        CommandRow(["top", "--interval=inf"], "Error: --interval must be between 0.05 and 86400 seconds, not inf"),
        CommandRow(["top", "--count", "-3"], "Error: --count must be at least 1, not -3"),
        CommandRow(["top", "--count=abc"], "Error: The value 'abc' is invalid for '--count <n>'"),
        CommandRow(["top", "--sort", "speed"], "Error: The value 'speed' is invalid for '--sort <key>'. Please provide one of 'energy', 'cpu' or 'wakeups'."),
        CommandRow(["top", "--by", "pid"], "Error: The value 'pid' is invalid for '--by <unit>'. Please provide one of 'unit'."),
        CommandRow(["top", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        // lowpower
        CommandRow(["lowpower", "maybe"], "Error: mode must be on, off or auto, not 'maybe'"),
        CommandRow(["lowpower", "on", "off"], "Error: Unexpected argument 'off'"),
        // battery
        CommandRow(["battery", "limit", "80-75"], "Error: charge limit start (80) must be below its end (75)"),
        CommandRow(["battery", "limit", "0"], "Error: charge limit end must be 1-100 %, not 0"),
        CommandRow(["battery", "limit", "75-"], "Error: charge limit must be END, START-END or off (percentages), not '75-'"),
        CommandRow(["battery", "limit", "80", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["battery", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["battery", "full-once"], "joule: full-once needs joule daemon, which puts the limit back when the charger is unplugged; it is not running", status: 1),
        // beacons
        CommandRow(["beacons", "scan", "--replay", missing], "joule beacons: open \(missing): No such file or directory (ENOENT)"),
        CommandRow(["beacons", "scan", "--replay={T}/dir"], "joule beacons: pread {T}/dir: Is a directory (EISDIR)"),
        CommandRow(["beacons", "scan", "--replay", "{T}/bad.btsnoop"],
                   "joule beacons: {T}/bad.btsnoop: not a btsnoop capture: file is 8 bytes, shorter than the 16-byte header"),
        CommandRow(["beacons", "scan", "--replay", "{T}/locked"], "joule beacons: open {T}/locked: Permission denied (EACCES)", asNobody: true),
        CommandRow(["beacons", "scan", "--transport", "magic"],
                   "Error: The value 'magic' is invalid for '--transport <transport>'. Please provide one of 'auto', 'hci' or 'bluez'."),
        CommandRow(["beacons", "scan", "--duty=abc"],
                   "Error: bad duty cycle \"abc\": not two numbers separated by '/' (expected WINDOW_MS/INTERVAL_MS, e.g. 30/300)"),
        CommandRow(["beacons", "range", "--interval", "-1", "--region", uuid], "Error: --interval must be a positive number of seconds"),
        CommandRow(["beacons", "range", "--once", "--timeout=nan", "--region", uuid], "Error: --timeout must be a positive number of seconds"),
        CommandRow(["beacons", "range", "--rssi-trim", "2", "--region", uuid], "Error: --rssi-trim must be at least 0 and below 0.5"),
        CommandRow(["beacons", "monitor", "--exit-timeout", "-1", "--region", uuid], "Error: --exit-timeout must be a positive number of seconds"),
        CommandRow(["beacons", "monitor", "--exec", " ", "--region", uuid], "Error: --exec needs a command"),
        CommandRow(["beacons", "monitor"], "Error: at least one --region NAME=UUID[:MAJOR[:MINOR]] is required"),
        CommandRow(["beacons", "range", "--timeout", "5", "--region", uuid], "Error: --timeout applies to --once only"),
        CommandRow(["beacons", "scan", "--adapter", "foo"], "Error: --adapter must name an adapter like hci0, not 'foo'"),
        CommandRow(["beacons", "scan", "--adapter=hci0", "--replay", "{T}/bad.btsnoop"], "Error: --adapter applies to live scans, not --replay"),
        CommandRow(["beacons", "record", "--out", "\(missing)/x.btsnoop", "--duration", "1"],
                   "joule beacons record: --out \(missing)/x.btsnoop: No such file or directory (ENOENT)"),
        CommandRow(["beacons", "record", "--out={T}/dir", "--duration", "1"], "joule beacons record: --out {T}/dir: Is a directory (EISDIR)"),
        // The capture is checked before --out is created or truncated: {T}/file keeps its bytes.
        CommandRow(["beacons", "record", "--out", "{T}/file", "--replay", missing],
                   "joule beacons record: open \(missing): No such file or directory (ENOENT)"),
        CommandRow(["beacons", "record", "--out", "{T}/file", "--replay={T}/bad.btsnoop"],
                   "joule beacons record: {T}/bad.btsnoop: not a btsnoop capture: file is 8 bytes, shorter than the 16-byte header"),
        CommandRow(["beacons", "record", "--out", "{T}/dir/x.btsnoop", "--duration", "-1"], "Error: --duration must be a positive number of seconds"),
        // location: the replay is read and checked before anything is printed
        CommandRow(["location", "once", "--replay", missing],
            "joule location: cannot read replay \(missing): open \(missing): No such file or directory (ENOENT)"),
        CommandRow(["location", "once", "--replay={T}/dir"], "joule location: cannot read replay {T}/dir: read {T}/dir: Is a directory (EISDIR)"),
        CommandRow(["location", "once", "--replay", "{T}/file"], "joule location: {T}/file: line 1: invalid JSON at byte 0: unexpected character"),
        CommandRow(["location", "watch", "--source=replay:{T}/file"], "joule location: {T}/file: line 1: invalid JSON at byte 0: unexpected character"),
        CommandRow(["location", "once", "--replay", "{T}/locked"],
            "joule location: cannot read replay {T}/locked: open {T}/locked: Permission denied (EACCES)", asNobody: true),
        CommandRow(["location", "once", "--accuracy", "0"], "Error: --accuracy must be a number of metres above 0, not 0.0"),
        CommandRow(["location", "once", "--accuracy=nan"], "Error: --accuracy must be a number of metres above 0, not nan"),
        CommandRow(["location", "once", "--timeout", "-1"], "Error: --timeout must be above 0 and at most 86400 seconds, not -1.0"),
        CommandRow(["location", "once", "--ttff=inf"], "Error: --ttff must be 0 to 86400 seconds, not inf"),
        CommandRow(["location", "watch", "--distance", "-5"], "Error: --distance must be 0 or more metres, not -5.0"),
        CommandRow(["location", "watch", "--defer-time", "0"], "Error: --defer-time must be above 0 and at most 86400 seconds, not 0.0"),
        CommandRow(["location", "watch", "--defer-distance=-1"], "Error: --defer-distance must be a number of metres above 0, not -1.0"),
        CommandRow(["location", "watch", "--pause-when-stationary", "0"], "Error: --pause-when-stationary must be above 0 and at most 86400 seconds, not 0.0"),
        CommandRow(["location", "watch", "--probe", "60"], "Error: --probe applies only with --pause-when-stationary"),
        CommandRow(["location", "watch", "--pause-when-stationary", "60", "--probe=-1"], "Error: --probe must be above 0 and at most 86400 seconds, not -1.0"),
        CommandRow(["location", "watch", "--give-up", "0"], "Error: --give-up must be above 0 and at most 86400 seconds, not 0.0"),
        CommandRow(["location", "watch", "--retry", "60"], "Error: --retry applies only with --give-up"),
        CommandRow(["location", "watch", "--give-up", "30", "--retry=inf"], "Error: --retry must be above 0 and at most 86400 seconds, not inf"),
        CommandRow(["location", "once", "--source", "fixed:95,0"], "Error: --source fixed:95,0: latitude must be a number in -90...90, not '95'"),
        CommandRow(["location", "once", "--source=fixed:1,200"], "Error: --source fixed:1,200: longitude must be a number in -180...180, not '200'"),
        CommandRow(["location", "once", "--source", "fixed:1,2,0"], "Error: --source fixed:1,2,0: accuracy must be a number of metres above 0, not '0'"),
        CommandRow(["location", "once", "--source", "somewhere"],
            "Error: --source must be auto, gpsd, geoclue, replay:FILE or fixed:LAT,LON[,ACCURACY], not 'somewhere'"),
        CommandRow(["location", "once", "--replay", "{T}/file", "--source", "fixed:1,2"], "Error: --replay FILE and --source are alternatives: give one"),
        // cpu-monitor
        CommandRow(["cpu-monitor", "--limit", "-5", "--uid", "0"], "Error: --limit must be a positive percentage of one core, got -5.0"),
        CommandRow(["cpu-monitor", "--limit=inf", "--uid", "0"], "Error: --limit must be a positive percentage of one core, got inf"),
        CommandRow(["cpu-monitor", "--window", "0", "--uid", "0"], "Error: --window must be a positive number of seconds, got 0.0"),
        CommandRow(["cpu-monitor", "--window=1e300", "--uid", "0"], "Error: --window must be at most 604800 seconds (a week), got 1e+300"),
        CommandRow(["cpu-monitor", "--interval", "-1", "--uid", "0"], "Error: --interval must be a positive number of seconds, got -1.0"),
        CommandRow(["cpu-monitor", "--duration=nan", "--uid", "0"], "Error: --duration must be a positive number of seconds, got nan"),
        CommandRow(["cpu-monitor", "--action", "explode", "--uid", "0"],
                   "Error: The value 'explode' is invalid for '--action <action>'. Please provide one of 'kill', 'throttle' or 'report'."),
        CommandRow(["cpu-monitor", "--reports", "{T}/file", "--uid", "0"],
                   "joule cpu-monitor: --reports {T}/file: cannot make the report directory: Not a directory (ENOTDIR)"),
        CommandRow(["cpu-monitor", "--reports={T}/locked-dir/r", "--uid", "0"],
                   "joule cpu-monitor: --reports {T}/locked-dir/r: cannot make the report directory: Permission denied (EACCES)", asNobody: true),
        CommandRow(["cpu-monitor", "--pid", "999999999"], "joule cpu-monitor: --pid 999999999: no such process"),
        CommandRow(["cpu-monitor", "--pid=abc"], "Error: The value 'abc' is invalid for '--pid <pid>'"),
        CommandRow(["cpu-monitor", "--pid", "-5"], "Error: --pid -5 is not a process ID"),
        CommandRow(["cpu-monitor", "--pid=-5"], "Error: --pid -5 is not a process ID"),
        CommandRow(["cpu-monitor", "--cgroup", "/joule-matrix-no-such-cgroup"],
                   "joule cpu-monitor: --cgroup /joule-matrix-no-such-cgroup: no such cgroup (no directory under /sys/fs/cgroup, and no process in it)"),
        CommandRow(["cpu-monitor", "--uid", "abc"], "Error: The value 'abc' is invalid for '--uid <uid>'"),
        CommandRow(["cpu-monitor", "--match", "("], "Error: --match (: not a valid regular expression: expected ')'"),
        // reports
        CommandRow(["reports", "list", "--reports", "{T}/file"], "joule reports: --reports {T}/file: Not a directory (ENOTDIR)"),
        CommandRow(["reports", "show", "NOSUCH", "--reports={T}/dir"], "joule reports: no report NOSUCH in {T}/dir"),
        // enforce
        CommandRow(["enforce", "--policy", missing], "joule: \(missing): cannot read: No such file or directory (ENOENT)"),
        CommandRow(["enforce", "--policy={T}/dir"], "joule: {T}/dir: cannot read: Is a directory (EISDIR)"),
        CommandRow(["enforce", "--policy", "{T}/bad.yaml"],
                   "joule: {T}/bad.yaml:2:1: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence)"),
        CommandRow(["enforce", "--policy", "{T}/locked", "--dry-run"], "joule: {T}/locked: cannot read: Permission denied (EACCES)", asNobody: true),
        CommandRow(["enforce", "--interval", "-1", "--policy", "{T}/file"], "Error: --interval must be between 0.05 and 86400 seconds, not -1.0"),
        CommandRow(["enforce"], "Error: --policy FILE is required (or --resume-all)"),
        // devices
        CommandRow(["devices", "a/b"], "Error: not a subsystem name: 'a/b'"),
        CommandRow(["devices", "power_supply", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["devices", "power_supply", "--root=\(fixtures)"],
                   "joule: root \(fixtures) holds neither sys/ nor proc/: not a machine's tree (a fixture such as hw-fixtures/NAME holds them)"),
        // daemon
        CommandRow(["daemon", "--session", "--config", "\(missing).yaml"], "joule daemon: \(missing).yaml: cannot read: No such file or directory (ENOENT)"),
        CommandRow(["daemon", "--session", "--config={T}/dir"], "joule daemon: {T}/dir: cannot read: Is a directory (EISDIR)"),
        CommandRow(["daemon", "--session", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["session", "--config", "\(missing).yaml"], "joule session: \(missing).yaml: cannot read: No such file or directory (ENOENT)"),
        CommandRow(["session", "--config={T}/dir"], "joule session: {T}/dir: cannot read: Is a directory (EISDIR)"),
        CommandRow(["daemon", "--restore", "--root", missing], "joule: cannot read root \(missing): No such file or directory (ENOENT)"),
        CommandRow(["daemon", "--system", "--session"], "Error: Value to be set with flag '--session' had already been set with flag '--system'"),
        // run: the program must never start
        CommandRow(["run", "--grace", "-1", "--", "touch", "{T}/RAN"], "Error: --grace must be 0 to 86400 seconds, not -1.0"),
        CommandRow(["run", "--background-budget=nan", "--", "touch", "{T}/RAN"], "Error: --background-budget must be 0 to 86400 seconds, not nan"),
        CommandRow(["run", "--cpu-limit", "-1", "--", "touch", "{T}/RAN"], "Error: --cpu-limit must be above 0 %, not -1.0"),
        CommandRow(["run", "--name", "bad/name", "--", "touch", "{T}/RAN"],
                   "Error: \"bad/name\" is not an app name: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"),
        CommandRow(["run"], "Error: give the command after --, e.g. joule run -- ./app"),
        // A program that cannot start: its reason is the first and only line, nothing claims it ran.
        CommandRow(["run", "--", "\(missing)/cmd"], "joule run: \(missing)/cmd: No such file or directory (ENOENT)", status: 127),
        CommandRow(["run", "--", "{T}/file"], "joule run: {T}/file: Permission denied (EACCES)", status: 127),
        // app
        CommandRow(["app", "background", "nosuch"], "joule: app background: no supervised app is named \"nosuch\" (none is running)"),
        CommandRow(["app", "frob"], "Error: Unexpected argument 'frob'"),
        // export
        CommandRow(["export", "--textfile", missing], "joule export: --textfile \(missing): No such file or directory (ENOENT)"),
        CommandRow(["export", "--textfile={T}/file"], "joule export: --textfile {T}/file: Not a directory (ENOTDIR)"),
        // transfer: each checked before the daemon is asked (none runs here)
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/dir/x", "--sha256", "xyz"], "Error: --sha256 must be 64 hex digits, not \"xyz\""),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/dir/x", "--priority=urgent"], "Error: --priority must be high, normal or low, not 'urgent'"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/dir/x", "--timeout", "-1"], "Error: --timeout must be a positive number of seconds up to 31622400 (a year), not -1.0"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/dir/x", "--timeout", "1e300"],
                   "Error: --timeout must be a positive number of seconds up to 31622400 (a year), not 1e+300"),
        CommandRow(["transfer", "add", "http://127.0.0.1:99999/x", "--to", "{T}/dir/x"], "Error: URL: port \"99999\" is not a port (1 to 65535)"),
        CommandRow(["transfer", "add", "http://[::1]:70000/x", "--to", "{T}/dir/x"], "Error: URL: port \"70000\" is not a port (1 to 65535)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "/proc/joule-matrix"],
                   "joule transfer add: --to /proc/joule-matrix: cannot create files in /proc: Read-only file system (EROFS)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/locked-dir/x"],
                   "joule transfer add: --to {T}/locked-dir/x: cannot create files in {T}/locked-dir: Permission denied (EACCES)", asNobody: true),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "{T}/dir/x", "--begin-after=nan"], "Error: --begin-after must be 0 to 31622400 seconds (a year), not nan"),
        CommandRow(["transfer", "add", "ftp://x/y", "--to", "{T}/dir/x"], "Error: URL: unsupported scheme \"ftp\" (http and https only)"),
        CommandRow(["transfer", "add", "notaurl", "--to", "{T}/dir/x"], "Error: URL: \"notaurl\" is not a URL"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to", "\(missing)/x"], "joule transfer add: --to \(missing)/x: No such file or directory (ENOENT)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--to={T}/dir"], "joule transfer add: --to {T}/dir: Is a directory (EISDIR)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--upload", "\(missing)/f"], "joule transfer add: --upload \(missing)/f: No such file or directory (ENOENT)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--upload={T}/dir"], "joule transfer add: --upload {T}/dir: Is a directory (EISDIR)"),
        CommandRow(["transfer", "add", "http://127.0.0.1:9/x", "--upload", "{T}/file", "--method", "GET"], "Error: --method must be PUT or POST, not 'GET'"),
        CommandRow(["transfer", "wait", "abc", "--timeout=-1"], "Error: --timeout must be zero or more seconds"),
        CommandRow(["transfer", "show"], "Error: Missing expected argument '<id>'"),
        CommandRow(["transfer", "list", "--bogus"], "Error: Unknown option '--bogus'"),
        // history
        CommandRow(["history", "--since", "garbage"],
                   "Error: \"garbage\" is not a time: give a span back from now (24h, 90m, 7d, 2w, 45s), Unix seconds, or a date and time (2026-03-10T08:30, local unless it ends in Z or +HH:MM)"),
        CommandRow(["history", "--since", "2026-03-10T09:00Z", "--until=2026-03-10T08:00Z"],
                   "joule history: --since (2026-03-10T09:00Z) is not before --until (2026-03-10T08:00Z)"),
        CommandRow(["history", "--svg", "\(missing)/x.svg", "--state-dir", "{T}/dir"], "joule history: --svg \(missing)/x.svg: No such file or directory (ENOENT)"),
        CommandRow(["history", "--html={T}/dir", "--state-dir", "{T}/dir"], "joule history: --html {T}/dir: Is a directory (EISDIR)"),
        CommandRow(["history", "--svg", "{T}/locked-dir/x.svg", "--state-dir", "{T}/dir"],
                   "joule history: --svg {T}/locked-dir/x.svg: cannot create files in {T}/locked-dir: Permission denied (EACCES)", asNobody: true),
        // A directory behind a closed one is not "missing": stat(2) says why it cannot be seen.
        CommandRow(["history", "--svg", "{T}/locked-dir/sub/x.svg", "--state-dir", "{T}/dir"],
                   "joule history: --svg {T}/locked-dir/sub/x.svg: Permission denied (EACCES)", asNobody: true),
        CommandRow(["history", "--since", "-5h"],
                   "Error: \"-5h\" is not a time: give a span back from now (24h, 90m, 7d, 2w, 45s), Unix seconds, or a date and time (2026-03-10T08:30, local unless it ends in Z or +HH:MM)"),
        CommandRow(["history", "--state-dir", "{T}/hist"], "joule history: the history in {T}/hist/history.db is unreadable: not an SQLite database"),
        CommandRow(["history", "--state-dir={T}/hist-locked"],
                   "joule history: cannot read the history at {T}/hist-locked/history.db: Permission denied (EACCES)", asNobody: true),
        CommandRow(["history", "--state-dir", "{T}/hist-legacy"],
                   "joule history: the history in {T}/hist-legacy/transfers.db is unreadable: not an SQLite database"),
        CommandRow(["history", "--state-dir", "{T}/dir"], "joule history: no history at {T}/dir/history.db: joule daemon records it there while it runs"),
        CommandRow(["history", "--state-dir", missing], "joule history: --state-dir \(missing): No such file or directory (ENOENT)"),
        CommandRow(["history", "--state-dir={T}/file"], "joule history: --state-dir {T}/file: Not a directory (ENOTDIR)"),
    ]

    static var canBecomeNobody: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    @Test(arguments: rows)
    func row(_ row: CommandRow) async throws {
        if row.asNobody && !Self.canBecomeNobody { return }
        let t = try Self.sandbox()
        defer {
            chmod(t.appendingPathComponent("locked-dir").path, 0o755)
            chmod(t.appendingPathComponent("tree/sys").path, 0o755)
            try? FileManager.default.removeItem(at: t)
        }
        let arguments = row.arguments.map { $0.replacingOccurrences(of: "{T}", with: t.path) }
        var environment = ProcessInfo.processInfo.environment
        environment["JOULE_STATE_DIR"] = t.path + "/state"
        environment["JOULE_RUNTIME_DIR"] = t.path + "/rt"
        environment["XDG_CONFIG_HOME"] = t.path + "/dir"
        // No daemon answers: each command decides alone.
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(t.path)/no-bus"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(t.path)/no-bus"
        let before = Self.listing(t)
        let result: Program.Result
        if row.asNobody {
            result = try await Program.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", CLIHarness.binary.path] + arguments,
                environment: environment, timeout: 30)
        } else {
            result = try await Program.run(CLIHarness.binary, arguments, environment: environment, timeout: 30)
        }
        #expect(!result.timedOut, "hung")
        #expect(!result.signalled, "crashed with signal \(result.status)")
        #expect(result.status == row.status, "stderr: \(result.stderr)")
        let first = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        #expect(first == row.firstLine.replacingOccurrences(of: "{T}", with: t.path))
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)")
        #expect(Self.listing(t) == before, "the run changed the sandbox")
        #expect(!FileManager.default.fileExists(atPath: t.path + "/RAN"))
    }
}
