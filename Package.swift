// swift-tools-version:6.0
import PackageDescription

// Runloop Lab: experiments that reproduce, measure and explain classic thread-pool, run-loop,
// closure-capture and completion-handler findings, on a shared measurement harness.
// No package dependencies: the toolchain only (Foundation, Dispatch, XCTest, Synchronization).

let package = Package(
    name: "RunloopLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LabHarness", targets: ["LabHarness"]),
        .library(name: "LabHarnessXCTest", targets: ["LabHarnessXCTest"]),
        .executable(name: "exp-runloop", targets: ["exp-runloop"]),
    ],
    targets: [
        // The harness: threads, stalls, child trials, deallocation, timing, trials, reports, CLI.
        .target(name: "CLabSupport", path: "Sources/CLabSupport"),
        .target(name: "LabHarness", dependencies: ["CLabSupport"], path: "Sources/LabHarness"),
        // XCTest assertions built on the harness, for the lab's tests and for library authors.
        .target(name: "LabHarnessXCTest", dependencies: ["LabHarness"], path: "Sources/LabHarnessXCTest"),

        // A small program the harness's tests launch as a child: it blocks, traps, exits, prints.
        .executableTarget(name: "lab-fixture", dependencies: ["LabHarness"], path: "Tests/LabFixture"),
        .testTarget(name: "LabHarnessTests", dependencies: ["LabHarness", "LabHarnessXCTest", "CLabSupport", "lab-fixture"],
                    path: "Tests/LabHarnessTests"),

        // exp-runloop: run-loop threads, timeout timers and semaphores.
        .target(name: "RunloopExperiment", dependencies: ["LabHarness"], path: "Experiments/exp-runloop/RunloopExperiment"),
        .executableTarget(name: "exp-runloop", dependencies: ["LabHarness", "RunloopExperiment"], path: "Experiments/exp-runloop", exclude: ["RunloopExperiment"]),
        .testTarget(name: "RunloopFindingsTests", dependencies: ["RunloopExperiment", "LabHarness", "LabHarnessXCTest", "exp-runloop"], path: "Tests/RunloopFindingsTests"),
    ],
    swiftLanguageModes: [.v6]
)
