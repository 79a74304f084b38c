// swift-tools-version: 6.0
import PackageDescription

// A library author's package, as a new user of Runloop Lab would write it: it depends on the
// lab by path and checks its own code with the harness's assertions, in XCTest and in Swift
// Testing. `name: "RunloopLab"` fixes the dependency's identity, so the `package:` lines below
// resolve whatever the lab's folder is called (without it the identity is the folder's name).
let package = Package(
    name: "HarnessUser",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RunloopLab", path: "../..")
    ],
    targets: [
        .target(name: "HarnessUserKit"),
        .testTarget(
            name: "HarnessUserXCTests",
            dependencies: [
                "HarnessUserKit", .product(name: "LabHarnessXCTest", package: "RunloopLab"),
            ]),
        .testTarget(
            name: "HarnessUserSwiftTests",
            dependencies: [
                "HarnessUserKit", .product(name: "LabHarnessTesting", package: "RunloopLab"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
