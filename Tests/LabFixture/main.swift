// lab-fixture: a child process with known behaviour, for the harness's own tests.
//
//   lab-fixture print TEXT          prints TEXT on stdout and exits 0
//   lab-fixture getenv NAME         prints the environment variable NAME, or "(unset)"
//   lab-fixture exit N              writes "failing with N" on stderr and exits N
//   lab-fixture block               blocks forever (a deadlock with no progress)
//   lab-fixture progress-then-block N   reports progress 1...N, then blocks forever
//   lab-fixture progress-forever    reports rising progress every 20 ms, forever
//   lab-fixture trap MESSAGE        fatalError(MESSAGE)
//   lab-fixture flood BYTES         writes BYTES bytes to stdout and to stderr, then exits 0
//   lab-fixture grandchild          spawns "lab-fixture block" in its own group, prints its pid, blocks
//   lab-fixture group-grandchild    spawns "lab-fixture block" in this group, prints its pid, blocks
//   lab-fixture own-group-grandchild  spawns "lab-fixture block" in a group of its own, unbound to
//                                   this process (as `swift test` starts a test binary), prints its pid, blocks
//   lab-fixture lifeline-block      binds to its parent (dies with it), prints its pid, blocks
//   lab-fixture park K              parks K extra threads, prints the thread count, exits
//   lab-fixture block-named K       parks K threads and the main thread in fixtureWaitsAtTheGate()
//   lab-fixture await-thread        starts a thread with NamedThread.startAndAwait, prints
//                                   "started true|false after SECONDS" (run it at a thread limit)
//   lab-fixture completes-unwatched runs assertCompletes on a block that never returns, printing
//                                   each failure and what it returned (run it at a thread limit)
//   lab-fixture --...               the fixture experiment (see FixtureExperiment.swift)
import Foundation
import LabHarness
import LabFixtureKit

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "--help"
let argument = arguments.count > 1 ? arguments[1] : ""

func blockForever() -> Never {
    let never = DispatchSemaphore(value: 0)
    while true { never.wait() }
}

/// Blocks the calling thread for good, in a frame a stack snapshot can name.
@inline(never) func fixtureWaitsAtTheGate(_ gate: DispatchSemaphore) -> Never {
    while true { gate.wait() }
}

func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

if mode.hasPrefix("--") {
    ExperimentMain.run(fixtureExperiment, arguments: arguments)
}

switch mode {
case "print":
    say(argument)
case "completes-unwatched":
    let site = FailureSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
    let call = AssertionCall(reporter: FailureReporter { message, _ in say("failed: \(message)") }, site: site)
    let took = HarnessAssertions.completes(within: 0.5, call) {
        say("the block ran")
        blockForever()
    }
    say("returned \(took.map { "\($0)" } ?? "nil")")
case "getenv":
    say(ProcessInfo.processInfo.environment[argument] ?? "(unset)")
case "exit":
    FileHandle.standardError.write(Data("failing with \(argument)\n".utf8))
    exit(Int32(argument) ?? 1)
case "block":
    blockForever()
case "block-named":
    let gate = DispatchSemaphore(value: 0)
    for _ in 0..<(Int(argument) ?? 0) {
        let thread = Thread { fixtureWaitsAtTheGate(gate) }
        thread.stackSize = 256 * 1024
        thread.start()
    }
    say("parked")
    // One progress report opens the parent's stall window, so the parent declares the
    // deadlock half a second later instead of waiting out its whole budget.
    ChildProtocol.sendProgress(1)
    fixtureWaitsAtTheGate(gate)
case "progress-then-block":
    for i in 1...(Int(argument) ?? 3) { ChildProtocol.sendProgress(i); MonotonicClock.sleep(for: 0.01) }
    blockForever()
case "progress-forever":
    var i = 0
    while true { i += 1; ChildProtocol.sendProgress(i); MonotonicClock.sleep(for: 0.02) }
case "trap":
    fatalError(argument.isEmpty ? "fixture trap" : argument)
case "flood":
    let chunk = Data(repeating: UInt8(ascii: "x"), count: 4096)
    var left = Int(argument) ?? 1_000_000
    while left > 0 {
        let part = chunk.prefix(min(left, chunk.count))
        FileHandle.standardOutput.write(part)
        FileHandle.standardError.write(part)
        left -= part.count
    }
case "grandchild", "group-grandchild":
    let me = ChildProcess.currentExecutablePath()
    if mode == "grandchild" {
        // A thread that lives on, running a child in its own process group.
        let thread = Thread {
            _ = try? ChildProcess.run(ChildSpec(executable: me, arguments: ["lifeline-block"], budget: 3600))
        }
        thread.start()
        blockForever()
    } else {
        var pid: pid_t = 0
        let argv = [strdup(me), strdup("block"), nil]
        _ = posix_spawn(&pid, me, nil, nil, argv, environ)
        say("grandchild \(pid)")
        blockForever()
    }
case "own-group-grandchild":
    let me = ChildProcess.currentExecutablePath()
    let thread = Thread {
        _ = try? ChildProcess.run(
            ChildSpec(executable: me, arguments: ["block"], budget: 3600, onStart: { say("grandchild \($0)") }))
    }
    thread.start()
    blockForever()
case "lifeline-block":
    ChildLifeline.bindToParent()
    let path = "/tmp/lab-fixture-lifeline-\(getppid())"
    try? String(getpid()).write(toFile: path, atomically: true, encoding: .utf8)
    blockForever()
case "await-thread":
    let began = MonotonicClock.now()
    let started = NamedThread.startAndAwait("fixture.await") { $0.signalReady() }
    say("started \(started) after \(MonotonicClock.now() - began)")
case "park":
    let k = Int(argument) ?? 1
    let hold = DispatchSemaphore(value: 0)
    for _ in 0..<k { Thread { hold.wait() }.start() }
    MonotonicClock.sleep(for: 0.2)
    say("threads \(ThreadCensus.count() ?? -1)")
default:
    FileHandle.standardError.write(Data("lab-fixture: unknown mode '\(mode)'\n".utf8))
    exit(64)
}
exit(0)
