// swift-tools-version:6.2
import PackageDescription

// Runloop Lab: experiments that reproduce, measure and explain classic thread-pool, run-loop,
// closure-capture and completion-handler findings, on a shared measurement harness.
// No package dependencies: the toolchain only (Foundation, Dispatch, XCTest, Synchronization).

/// One experiment: its logic as a library (importable by tests and by `lab`), a thin
/// executable, and its findings tests, which launch the executable as a child.
func experiment(_ executable: String, module: String, tests: String) -> [Target] {
    [
        .target(name: module, dependencies: ["LabHarness"], path: "Experiments/\(executable)/\(module)"),
        .executableTarget(
            name: executable, dependencies: ["LabHarness", .target(name: module)],
            path: "Experiments/\(executable)", exclude: [module]),
        .testTarget(
            name: tests,
            dependencies: [
                .target(name: module), "LabHarness", "LabHarnessXCTest",
                "FindingsTestSupport", .target(name: executable),
            ],
            path: "Tests/\(tests)"),
    ]
}

let experiments: [(executable: String, module: String, tests: String)] = [
    ("exp-runloop", "RunloopExperiment", "RunloopFindingsTests"),
    ("exp-pool", "PoolExperiment", "PoolFindingsTests"),
    ("exp-dance", "DanceExperiment", "DanceFindingsTests"),
    ("exp-callback", "CallbackExperiment", "CallbackFindingsTests"),
]

let package = Package(
    name: "RunloopLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LabHarness", targets: ["LabHarness"]),
        .library(name: "LabHarnessXCTest", targets: ["LabHarnessXCTest"]),
        .library(name: "LabHarnessTesting", targets: ["LabHarnessTesting"]),
    ] + experiments.map { .executable(name: $0.executable, targets: [$0.executable]) } + [
        .executable(name: "lab", targets: ["lab"]),
        // The C shim as a shared library: `lab watch` preloads it into the processes of the
        // command it watches, so that they answer its requests for stacks (StackResponder.c).
        .library(name: "LabStackResponder", type: .dynamic, targets: ["LabStackPreload"]),
    ],
    targets: [
        // The harness: threads, stalls, child trials, deallocation, timing, trials, reports, CLI.
        .target(name: "CLabSupport", path: "Sources/CLabSupport"),
        // The shim's stack responder alone (not the rest of the shim, which wraps pthread_create),
        // for the shared library `lab watch` preloads.
        .target(
            name: "LabStackPreload", path: "Sources/LabStackPreload",
            cSettings: [.headerSearchPath("../CLabSupport/include")]),
        .target(name: "LabHarness", dependencies: ["CLabSupport"], path: "Sources/LabHarness"),
        // XCTest assertions built on the harness, for the lab's tests and for library authors.
        .target(
            name: "LabHarnessXCTest", dependencies: ["LabHarness", "LabHarnessRecording"],
            path: "Sources/LabHarnessXCTest"),
        // Swift Testing assertions and traits: the same checks, recorded as `Issue`s.
        .target(
            name: "LabHarnessTesting", dependencies: ["LabHarness", "LabHarnessRecording"],
            path: "Sources/LabHarnessTesting"),
        // How both record a failure in whichever framework runs the caller (never dropped).
        .target(name: "LabHarnessRecording", dependencies: ["LabHarness"], path: "Sources/LabHarnessRecording"),

        // The runner: lists, runs and reports every experiment, and hosts each of them.
        .target(
            name: "LabRunner", dependencies: ["LabHarness"] + experiments.map { .target(name: $0.module) },
            path: "Experiments/lab/LabRunner"),
        .executableTarget(name: "lab", dependencies: ["LabRunner"], path: "Experiments/lab", exclude: ["LabRunner"]),
        .testTarget(
            name: "LabRunnerTests",
            dependencies: [
                "LabRunner", "LabHarness", "LabHarnessXCTest", "LabFixtureKit", "FindingsTestSupport", "lab",
                "lab-fixture",
            ],
            path: "Tests/LabRunnerTests"),

        // A small program the harness's tests launch as a child: it blocks, traps, exits, prints.
        .target(name: "LabFixtureKit", dependencies: ["LabHarness"], path: "Tests/LabFixtureKit"),
        .executableTarget(
            name: "lab-fixture", dependencies: ["LabHarness", "LabFixtureKit"], path: "Tests/LabFixture"),
        // The findings tests' one assertion (`assertReproduced`): reproduced passes, a machine
        // outcome skips, anything else fails.
        .target(name: "FindingsTestSupport", dependencies: ["LabHarness"], path: "Tests/FindingsTestSupport"),
        .testTarget(
            name: "LabHarnessTests",
            dependencies: [
                "LabHarness", "LabHarnessXCTest", "LabHarnessRecording", "CLabSupport", "LabFixtureKit",
                "FindingsTestSupport", "lab-fixture",
            ],
            path: "Tests/LabHarnessTests"),
        .testTarget(
            name: "LabHarnessTestingTests", dependencies: ["LabHarnessTesting"], path: "Tests/LabHarnessTestingTests"),
    ] + experiments.flatMap { experiment($0.executable, module: $0.module, tests: $0.tests) },
    swiftLanguageModes: [.v6]
)
