import Foundation
import Synchronization

/// What becomes of the rest of a test run when a hang forces this process to end.
///
/// A blocked thread cannot be stopped, so a test stuck past its hang watch (or in a synchronous
/// `assertCompletes` a second past its budget) ends its process. Xcode answers the same problem
/// by failing the hung test and restarting the test runner for the tests after it; this does
/// the same from inside the dying process, which is the one place that knows both the run's
/// command line and which tests it had left:
///
/// 1. the hung test's failure is recorded first, with every thread's stack (the framework
///    prints it at once);
/// 2. the framework layer that is running (XCTest or Swift Testing, see `register`) says how to
///    run the tests this process will not reach: the same test binary with the same arguments,
///    narrowed to those tests;
/// 3. that copy runs as a child of this process, its output copied to this process's stdout
///    and stderr as it comes, so its results appear in the same `swift test` output; it dies
///    with this process from before its `main` (`parentVariable`), and a hang in it continues
///    the same way, one level deeper;
/// 4. this process prints a summary line naming the hung test and exits 1, so the run fails.
///
/// Why not a supervisor process started before the tests: the harness is a library inside the
/// author's test binary, and `swift test` (or Xcode) starts that binary; relaunching from the
/// dying process needs nothing from the runner but its command line, on Linux and macOS alike.
public enum SuiteContinuation {
    /// How to run the tests a hung process will not reach.
    public struct Plan: Sendable {
        /// The tests' framework, for the messages (`XCTest`, `Swift Testing`).
        public var framework: String
        /// The hung test, as the framework names it.
        public var hungTest: String
        /// The arguments after `argv[0]` that run the remaining tests with this test binary;
        /// `nil` when there are none left, or they cannot be named (`reason` says why).
        public var arguments: [String]?
        /// What those arguments run (`3 XCTest tests after it`), or why nothing runs.
        public var remaining: String

        public init(framework: String, hungTest: String, arguments: [String]?, remaining: String) {
            self.framework = framework
            self.hungTest = hungTest
            self.arguments = arguments
            self.remaining = remaining
        }
    }

    /// Answers, in a dying process, how to go on; `nil` when its framework runs no test here.
    public typealias Planner = @Sendable () -> Plan?

    private static let planners = Mutex<[String: Planner]>([:])

    /// The environment variable that tells a relaunched copy how deep in the chain it is.
    static let depthVariable = "LAB_HARNESS_CONTINUATION"
    /// The environment variable that names a relaunched copy's parent: the C shim's constructor
    /// ties the copy to it before `main` and removes the variable (so nothing the copy starts
    /// inherits it), whether or not a test in the copy ever calls the harness.
    static let parentVariable = "LAB_HARNESS_CONTINUATION_PARENT"
    /// The environment variable that sets the relaunched copy's budget, in seconds (default
    /// 3600): a copy still running then is killed, so the run ends even if nothing in it
    /// watches for hangs.
    static let budgetVariable = "LAB_HARNESS_CONTINUATION_BUDGET"
    /// Relaunches in a row at most: each one skips at least one more hung test, so the chain
    /// ends anyway; this bounds a suite where every test hangs.
    static let maximumDepth = 32

    /// Installs `planner` under `key` (one per framework layer; a second call replaces it).
    public static func register(_ key: String, _ planner: @escaping Planner) {
        planners.withLock { $0[key] = planner }
    }

    /// How deep this process is in a chain of relaunches (0: started by the runner itself).
    public static var depth: Int {
        Int(ProcessInfo.processInfo.environment[depthVariable] ?? "") ?? 0
    }

    private static let bound = Atomic<Bool>(false)

    /// In a relaunched copy (`depth` > 0), makes standard output unbuffered, so what the copy
    /// printed before a hang or a crash reaches its parent; once, on the harness's first use.
    /// (The copy already dies with its parent: see `parentVariable`. Tying it here, on first
    /// use, missed copies whose tests never call the harness, and wrongly took the copy's own
    /// children, which inherit `depth`, for the copy.)
    public static func bindIfRelaunched() {
        guard depth > 0, !bound.exchange(true, ordering: .acquiringAndReleasing) else { return }
        StandardOutput.makeUnbuffered()
    }

    /// The plan of the first framework layer that has a running test here.
    public static func plan() -> Plan? {
        let all = planners.withLock { Array($0.sorted { $0.key < $1.key }.map(\.value)) }
        for planner in all { if let plan = planner() { return plan } }
        return nil
    }

    private static let evidenceText = Mutex<String?>(nil)

    /// The stuck thread's grouped stack handed to `endAfterHang`, for a planner that must find
    /// the hung test by it (XCTest's, when its observer came in during that test).
    public static var evidence: String? { evidenceText.withLock { $0 } }

    /// Ends this process after a hang whose failure is already recorded: runs the tests after
    /// the hung one in a new copy of the test binary (see the type's doc), prints a summary
    /// naming the hung test, and exits 1. `stuckStack` is the stuck thread's grouped stack.
    static func endAfterHang(_ reason: String, stuckStack: String? = nil) -> Never {
        evidenceText.withLock { $0 = stuckStack }
        StderrCopySession.endForProcessExit()
        // A closure child trial's copy runs one test for its parent, which reads how it ended.
        if ClosureChildTrial.requestedSite != nil { ProcessEnd.now(reason) }
        ProcessEnd.say("LabHarness: ending the process: \(reason)\n")
        // No framework layer runs a test here (a tool of the author's, an exit test's body).
        guard let plan = plan() else { ProcessEnd.exitNow() }
        guard let arguments = plan.arguments else {
            say(summary: plan, after: plan.remaining)
        }
        guard depth < maximumDepth else {
            say(
                summary: plan,
                after: "\(plan.remaining) did not run: this is relaunch \(depth) in a row, the most LabHarness makes")
        }
        let budget = Double(ProcessInfo.processInfo.environment[budgetVariable] ?? "") ?? 3600
        ProcessEnd.say(
            "LabHarness: the run goes on without \(plan.hungTest): running \(plan.remaining) in a new copy of the test process\n"
        )
        var spec = ChildSpec(
            executable: ChildProcess.currentExecutablePath(), arguments: arguments,
            environment: [depthVariable: String(depth + 1), parentVariable: String(getpid())], budget: budget,
            outputLimit: 64 << 10)
        spec.echoesOutput = true
        let ended: String
        do {
            let run = try ChildProcess.run(spec)
            switch run.outcome {
            case .completed: ended = "they ran in a new process, which passed"
            case .failed:
                let why = run.exitCode.map { "exit status \($0)" } ?? run.evidence
                ended = "they ran in a new process, which failed (\(why)): see its results above"
            default:
                ended =
                    "they ran in a new process, which ended \(run.outcome.rawValue) (\(run.evidence)): see its results above"
            }
        } catch {
            ended = "they did not run: \(error)"
        }
        say(summary: plan, after: "\(plan.remaining): \(ended)")
    }

    private static func say(summary plan: Plan, after: String) -> Never {
        ProcessEnd.say(
            "LabHarness: summary: \(plan.framework) test \(plan.hungTest) hung and failed (its failure and every thread's stack are above); \(after)\n"
        )
        ProcessEnd.exitNow()
    }
}
