import CLabSupport
import Foundation
import Synchronization

/// The `main` of every experiment executable: `ExperimentMain.run(myExperiment)`.
///
/// - bad flags: one line on stderr, exit 64;
/// - `--help`: the generated help, exit 0;
/// - `--child-variant NAME` (internal): run one trial here, on the main thread, and write its
///   record as a `@lab:result` line; the parent does the rest;
/// - otherwise: run the plan, print the report (`--json`: JSON on stdout, text on stderr) and
///   exit 0 when every applicable finding reproduced and no variant ended with a forbidden
///   outcome, 1 when one did not or one did, 130 on Ctrl-C.
public enum ExperimentMain {
    /// - Parameters:
    ///   - arguments: the command line without the program name.
    ///   - childPrefix: arguments that select this experiment when the program hosts several
    ///     (child trials are relaunched with them first).
    ///   - program: the name used in messages (default: the experiment's executable name).
    public static func run(
        _ definition: ExperimentDefinition, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        childPrefix: [String] = [], program: String? = nil
    ) -> Never {
        ChildHandshake.bindIfStartedByLab()
        Terminal.prepareOutput()
        let program = program ?? definition.executable
        let options: ParsedOptions, parameters: any ExperimentParameters
        do {
            options = try definition.parser.parse(arguments)
            parameters = try definition.parameters(options)
        } catch let error as UsageError {
            Terminal.writeError("\(program): \(error.message)\n")
            exit(UsageError.exitStatus)
        } catch {
            Terminal.writeError("\(program): \(error)\n")
            exit(UsageError.exitStatus)
        }
        if options.bool("help") {
            Terminal.writeOutput(HelpText.render(definition))
            Terminal.exit(0, program: program)
        }
        if options.wasGiven("child-variant") {
            guard ChildHandshake.startedByLab else {
                Terminal.writeError(ChildHandshake.refusal(program: program, what: "--child-variant"))
                exit(UsageError.exitStatus)
            }
            runChildTrial(definition, options: options, parameters: parameters)
        }

        if options.int("trials") > 1 {
            // Many trials can take long: say how long before the first one starts.
            let plan = ExperimentRunner.estimate(definition, options: options, parameters: parameters)
            let trialsEach = options.int("trials")
            let sweeping = definition.sweep.map { options.wasGiven($0.flag) } == true
            let kind = sweeping ? "points" : "variants"
            let time = Format.duration(plan.seconds)
            Terminal.writeError(
                "\(program): \(plan.trials) trials (\(trialsEach) of each of \(plan.variants) \(kind)) "
                    + "will take about \(time), by each variant's usual time; Ctrl-C stops early with what finished\n"
            )
        }
        let interrupt = InterruptHandler.install()
        SuspendHandler.install()
        let status = RunStatus(title: program)
        let line = ProgressLine { status.line() }
        line.start()
        let report = ExperimentRunner.run(
            definition, options: options, parameters: parameters, childPrefix: childPrefix, status: status)
        line.finish()
        let elapsed = MonotonicClock.now() - status.startedAt

        let humanFD: Int32 = options.json ? 2 : 1
        let style = Style(enabled: Terminal.colourAllowed(fd: humanFD))
        let text = HumanReport.render(
            report, definition: definition, elapsed: elapsed, style: style,
            width: Terminal.width(fd: humanFD))
        if options.json {
            Terminal.stdoutCarriesProduct()
            Terminal.writeError(text)
            // The JSON is the product: when it cannot be made (a number JSON cannot hold, such as
            // an infinite threshold), say so in one line and exit 74, as when it cannot be
            // delivered, rather than end with an empty stdout and the verdict's status.
            do {
                let data = try report.jsonData(pretty: true)
                Terminal.writeOutput(String(decoding: data, as: UTF8.self) + "\n")
            } catch {
                Terminal.writeError(
                    "\(program): the JSON report could not be encoded: \(ExperimentReport.whyNotEncoded(error))\n")
                Foundation.exit(Terminal.ioErrorStatus)
            }
        } else {
            Terminal.writeOutput(text)
        }
        if interrupt.fired {
            Terminal.writeError("\(program): interrupted; the report above is incomplete\n")
            Terminal.exit(130, program: program)
        }
        Terminal.exit(report.passed ? 0 : 1, program: program)
    }

    /// Child mode: one trial on the main thread (some variants need it: the main queue only
    /// runs when the main thread lets it), progress lines from a reporter thread, the result as
    /// JSON, then `_exit` so that threads the trial left blocked on purpose cannot hold the
    /// process open.
    static func runChildTrial(
        _ definition: ExperimentDefinition, options: ParsedOptions, parameters: any ExperimentParameters
    ) -> Never {
        ChildLifeline.bindToParent()
        // Under a memory cgroup the OOM killer then ends this trial, which the parent names
        // out-of-memory, before it ends the harness, which would leave no report at all.
        _ = clab_prefer_oom_kill(500)
        // A descriptor refused at RLIMIT_NOFILE is told on stderr at once: what fails next
        // (Foundation, libdispatch) often traps without a word.
        clab_tell_descriptor_failures()
        let name = options.string("child-variant")
        guard let variant = definition.sweep?.pointVariant(named: name, options) ?? definition.variant(named: name)
        else {
            Terminal.writeError("\(definition.executable): unknown variant '\(name)'\n")
            _exit(UsageError.exitStatus)
        }
        let progress = ProgressCounter()
        let machine = MachineWatch()
        let reporter = ProgressReporter(counter: progress, machine: machine)
        let record: VariantRecord
        if !reporter.start(), let failed = MachineCheck.threadCreationFailed() {
            // Not even the reporter's thread could be created: the trial would wait for its
            // threads until its budget. Say so now instead.
            record = VariantRecord(outcome: failed.outcome, metrics: failed.metrics, evidence: failed.evidence)
        } else {
            record = machine.apply(
                to: ExperimentRunner.runBody(
                    variant, options: options, parameters: parameters,
                    inChild: true, progress: progress))
            reporter.stop()
        }
        let payload =
            (try? JSONEncoder().encode(record)).map { String(decoding: $0, as: UTF8.self) }
            ?? #"{"outcome":"failed","metrics":{},"evidence":"the result could not be encoded","series":{},"events":[]}"#
        fflush(nil)  // anything the trial print()ed goes out before the result line
        ChildProtocol.sendResult(payload)
        fflush(nil)  // anything the trial print()ed
        _exit(0)
    }
}

/// Sends the child's progress to the parent whenever it changes (checked every 20 ms), and
/// lets the machine watch look on each tick.
final class ProgressReporter: Sendable {
    private let counter: ProgressCounter
    private let machine: MachineWatch?
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(counter: ProgressCounter, machine: MachineWatch? = nil) {
        self.counter = counter
        self.machine = machine
    }

    /// Starts the reporter's thread; false when it was not running within 2 s (it could not be
    /// created, or the machine gives this process no CPU).
    @discardableResult
    func start() -> Bool {
        let running = DispatchSemaphore(value: 0)
        NamedThread.startInstrument("lab.reporter") { [self] in
            running.signal()
            var last = -1
            while true {
                let stop = stopping.load(ordering: .acquiring)
                let value = counter.value
                if value != last { ChildProtocol.sendProgress(value); last = value }
                machine?.poll()
                if stop { break }
                MonotonicClock.sleep(for: 0.02)
            }
            finished.signal()
        }
        return running.wait(timeout: .now() + .seconds(2)) == .success
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        _ = finished.wait(timeout: .now() + .seconds(1))
    }
}

/// Turns Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal) into an orderly stop: running children are killed and
/// reaped, the run finishes with what it has (marked `interrupted`), and the program exits 130.
/// A second Ctrl-C exits at once.
public final class InterruptHandler: Sendable {
    private let flag = Atomic<Bool>(false)
    // Kept alive for the process's life; set once, on the main thread.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    public var fired: Bool { flag.load(ordering: .acquiring) }

    public static func install() -> InterruptHandler {
        let handler = InterruptHandler()
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: DispatchQueue(label: "lab.interrupt"))
            source.setEventHandler {
                if handler.flag.exchange(true, ordering: .acquiringAndReleasing) {
                    ChildProcess.terminateAll()
                    _exit(130)
                }
                ChildProcess.terminateAll()
            }
            source.resume()
            sources.append(source)
        }
        return handler
    }
}

/// Makes Ctrl-Z pause the whole run and `fg` resume it. The terminal sends `SIGTSTP` to the
/// foreground process group, which holds this program but not its children (each runs in a
/// group of its own, so that a kill reaches all of a trial's processes); so the program stops
/// its children first (`ChildProcess.pauseAll`), then itself with `SIGSTOP`, and on `SIGCONT`
/// continues them. Budgets and stall windows do not count the pause; a trial's same-moment
/// control sees it as the machine's own stall, which is what it was.
public enum SuspendHandler {
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []  // set once, on the main thread

    public static func install() {
        guard sources.isEmpty else { return }
        signal(SIGTSTP, SIG_IGN)
        let queue = DispatchQueue(label: "lab.suspend")
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: queue)
        stop.setEventHandler {
            ChildProcess.pauseAll()
            _ = clab_stop_self()
        }
        let resume = DispatchSource.makeSignalSource(signal: SIGCONT, queue: queue)
        resume.setEventHandler { ChildProcess.resumeAll() }
        stop.resume()
        resume.resume()
        sources = [stop, resume]
    }
}
