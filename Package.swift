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
        .executable(name: "exp-dance", targets: ["exp-dance"]),
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

        // exp-dance: heap-stack dance versus weak-strong dance (closure capture and deallocation).
        .target(name: "DanceExperiment", dependencies: ["LabHarness"], path: "Experiments/exp-dance/DanceExperiment"),
        .executableTarget(name: "exp-dance", dependencies: ["LabHarness", "DanceExperiment"], path: "Experiments/exp-dance", exclude: ["DanceExperiment"]),
        .testTarget(name: "DanceFindingsTests", dependencies: ["DanceExperiment", "LabHarness", "LabHarnessXCTest", "exp-dance"], path: "Tests/DanceFindingsTests"),
    ],
    swiftLanguageModes: [.v6]
)
