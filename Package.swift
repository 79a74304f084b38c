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
        .executable(name: "exp-callback", targets: ["exp-callback"]),
        .executable(name: "lab", targets: ["lab"]),
    ],
    targets: [
        // The harness: threads, stalls, child trials, deallocation, timing, trials, reports, CLI.
        .target(name: "CLabSupport", path: "Sources/CLabSupport"),
        .target(name: "LabHarness", dependencies: ["CLabSupport"], path: "Sources/LabHarness"),
        // XCTest assertions built on the harness, for the lab's tests and for library authors.
        .target(name: "LabHarnessXCTest", dependencies: ["LabHarness"], path: "Sources/LabHarnessXCTest"),

        // The runner: lists, runs and reports every experiment, and hosts each of them.
        .target(name: "LabRunner", dependencies: ["LabHarness", "CallbackExperiment"],
                path: "Experiments/lab/LabRunner"),
        .executableTarget(name: "lab", dependencies: ["LabRunner"], path: "Experiments/lab", exclude: ["LabRunner"]),
        .testTarget(name: "LabRunnerTests", dependencies: ["LabRunner", "LabHarness", "LabHarnessXCTest", "LabFixtureKit", "lab", "lab-fixture"],
                    path: "Tests/LabRunnerTests"),

        // A small program the harness's tests launch as a child: it blocks, traps, exits, prints.
        .target(name: "LabFixtureKit", dependencies: ["LabHarness"], path: "Tests/LabFixtureKit"),
        .executableTarget(name: "lab-fixture", dependencies: ["LabHarness", "LabFixtureKit"], path: "Tests/LabFixture"),
        .testTarget(name: "LabHarnessTests", dependencies: ["LabHarness", "LabHarnessXCTest", "CLabSupport", "lab-fixture"],
                    path: "Tests/LabHarnessTests"),

        // exp-callback: callback versus completion-handler APIs on a small chat library.
        .target(name: "CallbackExperiment", dependencies: ["LabHarness"], path: "Experiments/exp-callback/CallbackExperiment"),
        .executableTarget(name: "exp-callback", dependencies: ["LabHarness", "CallbackExperiment"], path: "Experiments/exp-callback", exclude: ["CallbackExperiment"]),
        .testTarget(name: "CallbackFindingsTests", dependencies: ["CallbackExperiment", "LabHarness", "LabHarnessXCTest", "exp-callback"], path: "Tests/CallbackFindingsTests"),
    ],
    swiftLanguageModes: [.v6]
)
