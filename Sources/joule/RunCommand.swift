import ArgumentParser
import JouleHardware
import JouleEnergy
import JouleApps
import JouleClient

/// `joule run`: start a program under lifecycle supervision.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a program with an app lifecycle: background time, suspension, and a CPU limit in the background.",
        discussion: """
            The program starts active, in a cgroup v2 of its own when this user may create one (under \
            $JOULE_CGROUP, or joule's own cgroup), else as a process tree suspended with SIGSTOP/SIGCONT \
            (said once on stderr). stdin, stdout and stderr are the program's; joule run exits with its \
            status (128+N when killed by signal N; 127 when it cannot start; 1 when joule cannot set up). \
            Move it with `joule app background|foreground|suspend|terminate NAME`. The program finds its \
            lifecycle socket in $JOULE_LIFECYCLE_SOCKET.
            """)

    @Option(parsing: .unconditional, help: "The app's name (default: the command's file name).")
    var name: String?

    @Option(parsing: .unconditional, help: "Seconds an app may run after entering the background with no task open.")
    var grace: Double = 5

    @Option(parsing: .unconditional, help: "Seconds of background time in total, for open background tasks.")
    var backgroundBudget: Double = 30

    @Option(parsing: .unconditional, help: "CPU limit in the background, in percent of one core.")
    var cpuLimit: Double = 80

    @Option(parsing: .unconditional, help: "The CPU limit's trailing window, in seconds.")
    var cpuWindow: Double = 60

    @Flag(help: "Never suspend on its own (an explicit `joule app suspend` still does).")
    var noSuspend = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command after --, e.g. joule run -- ./app") }
        for (label, value) in [("--grace", grace), ("--background-budget", backgroundBudget), ("--cpu-window", cpuWindow)] {
            guard value.isFinite, value >= 0, value <= 86_400 else { throw ValidationError("\(label) must be 0 to 86400 seconds, not \(value)") }
        }
        guard cpuWindow > 0 else { throw ValidationError("--cpu-window must be more than 0 seconds") }
        guard cpuLimit.isFinite, cpuLimit > 0, cpuLimit <= 100_000 else { throw ValidationError("--cpu-limit must be above 0 %, not \(cpuLimit)") }
        if let name, !AppSupervisorError.isValidName(name) { throw ValidationError(AppSupervisorError.invalidName(name).description) }
    }

    func run() async throws {
        var configuration = AppLifecycleMachine.Configuration()
        configuration.grace = .seconds(grace)
        configuration.backgroundBudget = .seconds(backgroundBudget)
        configuration.cpuLimitPercent = cpuLimit
        configuration.cpuWindow = .seconds(cpuWindow)
        configuration.suspends = !noSuspend
        guard let runtime = RuntimeDirectory.current() else {
            Console.error("joule run: " + RuntimeDirectory.missingMessage)
            throw ExitCode(AppRunner.setupFailure)
        }
        let runner = AppRunner(name: name, command: command, configuration: configuration, runtime: runtime,
                               environment: CurrentProcess.environment())
        let status = await runner.run { Console.error("joule run: " + $0) }
        throw ExitCode(status)
    }
}
