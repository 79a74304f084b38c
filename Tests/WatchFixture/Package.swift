// swift-tools-version:6.2
import PackageDescription

// A package whose tests hang, spin and crash on purpose, between tests that pass: what
// `lab watch -- swift test` is tested on (Tests/LabRunnerTests/WatchCommandTests.swift).
// Not a target of the lab's own package, and it depends on nothing.
let package = Package(
    name: "WatchFixture",
    targets: [
        .target(name: "WatchFixtureKit"),
        .testTarget(name: "WatchFixtureTests", dependencies: ["WatchFixtureKit"]),
    ],
    swiftLanguageModes: [.v6]
)
