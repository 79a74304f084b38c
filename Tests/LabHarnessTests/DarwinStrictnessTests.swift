import Foundation
import LabHarness
import LabHarnessXCTest
import Synchronization
import XCTest

/// Apple's SDK rejects what Linux's libraries accept: its Dispatch and Foundation mark
/// `DispatchSemaphore.wait`, `DispatchGroup.wait`, `DispatchWorkItem.wait`, `Thread.isMainThread`,
/// `Thread.current`, `NSLock.lock`/`unlock`, `NSCondition.wait` and XCTest's
/// `wait(for:timeout:)` unavailable from asynchronous contexts, an error in the Swift 6 language
/// mode; Linux's mark none of them, so `swift build` here passes code a Mac refuses to build.
///
/// This test makes this machine's compiler as strict as a Mac's for those calls. It type-checks
/// every module of the repository (the package's targets and `Tests/HarnessUser`) with the
/// declarations in `Tests/DarwinStrictness/` compiled into it: copies of those members marked
/// `noasync`, which shadow Linux's inside the module checked. A call that Apple's SDK rejects is
/// then rejected here, by the compiler's own rule for what an asynchronous context is, and the
/// test fails naming the file and line. Where the SDK in use marks the calls itself (a Mac),
/// `swift build` is the check, and the test says so and skips.
///
/// Only files that can hold an asynchronous context are type-checked in full (they mention
/// `async`, `await` or `Task`, or call a function of the repository that takes an async
/// closure); the module's other files are read for their declarations only, which keeps the
/// whole check to seconds.
final class DarwinStrictnessTests: XCTestCase {
    func testNoCallAppleMarksUnavailableFromAsyncCodeIsMadeInAnAsyncContext() throws {
        let check = try StrictnessCheck()
        if let reason = try check.sdkIsStrictAlready() { throw XCTSkip(reason) }
        let units = try check.repositoryUnits()
        let uncovered = check.swiftFilesOutside(units)
        XCTAssertEqual(
            uncovered, [],
            "Swift files in no module the check knows; add their target to StrictnessCheck.repositoryUnits")
        let findings = try check.run(units)
        XCTAssertEqual(
            findings, [],
            "calls Apple's SDK rejects in an async context (a Mac's `swift build` fails on each):\n"
                + findings.joined(separator: "\n"))
    }

    /// The check can fail: a module with a wait in a task, in an async function, in an async
    /// closure, and the same waits in synchronous code, which Apple's SDK allows; exactly the
    /// first three are named, with their lines.
    func testTheCheckNamesAWaitInAsyncCodeAndNoneInSyncCode() throws {
        let check = try StrictnessCheck()
        if let reason = try check.sdkIsStrictAlready() { throw XCTSkip(reason) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strictness-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = """
            import Dispatch
            import Foundation
            func inATask(_ s: DispatchSemaphore) { Task.detached { s.wait() } }
            func inAnAsyncFunction(_ g: DispatchGroup) async { _ = g.wait(timeout: .now() + 1) }
            let inAnAsyncClosure: @Sendable () async -> Bool = { Thread.isMainThread }
            func synchronous(_ s: DispatchSemaphore) { s.wait(); _ = Thread.isMainThread }
            func syncClosureInAsync(_ s: DispatchSemaphore) async { DispatchQueue.global().async { s.wait() } }
            func helperFromATask(_ s: DispatchSemaphore) { Task { synchronous(s) } }

            """
        let file = folder.appendingPathComponent("Canary.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let findings = try check.run([StrictnessCheck.Unit(module: "Canary", files: [file.path])])
        XCTAssertEqual(
            findings.map { $0.components(separatedBy: ": ").first ?? "" }, [3, 4, 5].map { "\(file.path):\($0)" },
            "\(findings)")
        XCTAssertTrue(findings.allSatisfy { $0.contains("unavailable from asynchronous contexts") }, "\(findings)")
    }
}

/// The type-check behind `DarwinStrictnessTests`, with the debug build's modules.
struct StrictnessCheck {
    /// A module to check: its name, its Swift files, and modules built for it elsewhere.
    struct Unit {
        var module: String
        var files: [String]
        var extraModules: String? = nil
        /// The build of the package libraries in `extraModules`, which its check waits for.
        var libraries: LibraryBuild? = nil
        /// A single-file program whose top-level code is its `main` (an executable's main.swift,
        /// a program a handout has students build with `swiftc`).
        var isProgram = false
        /// A copy's path → the repository file it was copied from (a program not named
        /// main.swift is checked as a copy that is, where its top-level code is allowed).
        var copies: [String: String] = [:]
        var importsXCTest: Bool {
            files.contains { (try? String(contentsOfFile: $0, encoding: .utf8))?.contains("import XCTest") == true }
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let products = BuiltProducts.directory
    let markings = root.appendingPathComponent("Tests/DarwinStrictness/AppleAsyncMarkings.swift").path
    let xctestMarkings = root.appendingPathComponent("Tests/DarwinStrictness/AppleXCTestAsyncMarkings.swift").path
    let swiftc: String
    /// The frontend command the driver uses to type-check one file, less the file and module.
    let frontend: (executable: String, arguments: [String])

    init() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        guard
            let found = path.split(separator: ":").map({ "\($0)/swiftc" }).first(
                where: FileManager.default.isExecutableFile)
        else {
            throw XCTSkip("no swiftc on PATH: the check needs the toolchain that built the tests")
        }
        swiftc = found
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("strictness-probe-\(getpid()).swift")
        try "".write(to: probe, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: probe) }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: swiftc, arguments: ["-###", "-typecheck", "-module-name", "StrictnessProbe", probe.path],
                budget: 60))
        guard let line = run.stdout.split(separator: "\n").first(where: { $0.contains("-frontend") }) else {
            throw StrictnessError("the driver printed no frontend command: \(run.stdout) \(run.stderr)")
        }
        var words = line.split(separator: " ").map(String.init)
        let executable = words.removeFirst()
        var kept: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "-primary-file" || word == "-module-name" { index += 2; continue }
            if word == probe.path { index += 1; continue }
            kept.append(word)
            index += 1
        }
        frontend = (executable, kept)
    }

    /// Whether the SDK in use marks the waits itself (then `swift build` is the check): a wait
    /// in an async function is type-checked with no markings of ours.
    func sdkIsStrictAlready() throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strictness-sdk-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Probe.swift")
        try "import Dispatch\nfunc f() async { DispatchSemaphore(value: 0).wait() }\n".write(
            to: file, atomically: true, encoding: .utf8)
        let run = try ChildProcess.run(
            ChildSpec(
                executable: frontend.executable,
                arguments: frontend.arguments
                    + ["-module-name", "Probe", "-swift-version", "6", "-primary-file", file.path], budget: 60))
        return run.stderr.contains("unavailable from asynchronous contexts")
            ? "this SDK marks the waits unavailable from async code itself (a Mac): `swift build` is the check" : nil
    }

    /// The repository's modules, by the package's layout (Package.swift): `Sources/NAME`,
    /// `Experiments/EXE/NAME` and `Experiments/EXE/main.swift`, `Tests/NAME`, and the library
    /// author's package in `Tests/HarnessUser`.
    func repositoryUnits() throws -> [Unit] {
        var units: [Unit] = []
        for folder in Self.subfolders("Sources") where folder != "CLabSupport" {
            units.append(Unit(module: folder, files: Self.swiftFiles(under: "Sources/\(folder)")))
        }
        for executable in Self.subfolders("Experiments") {
            for module in Self.subfolders("Experiments/\(executable)") {
                units.append(Unit(module: module, files: Self.swiftFiles(under: "Experiments/\(executable)/\(module)")))
            }
            units.append(
                Unit(
                    module: executable.replacingOccurrences(of: "-", with: "_"),
                    files: [Self.path("Experiments/\(executable)/main.swift")], isProgram: true))
        }
        let packages = Self.subfolders("Tests").filter {
            FileManager.default.fileExists(atPath: Self.path("Tests/\($0)/Package.swift"))
        }
        for folder in Self.subfolders("Tests") where folder != "DarwinStrictness" && !packages.contains(folder) {
            let files = Self.swiftFiles(under: "Tests/\(folder)")
            units.append(
                Unit(module: folder, files: files, isProgram: files.count == 1 && files[0].hasSuffix("/main.swift")))
        }
        // Programs the handouts have students build, each on its own.
        for program in Self.swiftFiles(under: "notes/programs") {
            let name = URL(fileURLWithPath: program).deletingPathExtension().lastPathComponent
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strictness-\(getpid())-\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let copy = folder.appendingPathComponent("main.swift")
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(atPath: program, toPath: copy.path)
            units.append(Unit(module: name, files: [copy.path], isProgram: true, copies: [copy.path: program]))
        }
        // Packages of their own in Tests/ (the library author's, lab watch's fixture): their
        // libraries are built for their tests to import, by the first of the package's checks to
        // start (`LibraryBuild`), while the other core checks modules of the lab's own.
        for package in packages {
            let modules = FileManager.default.temporaryDirectory.appendingPathComponent(
                "strictness-\(getpid())-\(package)")
            try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
            let libraries = Self.subfolders("Tests/\(package)/Sources").map { library in
                Unit(
                    module: library, files: Self.swiftFiles(under: "Tests/\(package)/Sources/\(library)"),
                    extraModules: modules.path)
            }
            let build = LibraryBuild { [swiftc, products = self.modules] in
                for library in libraries {
                    let module = modules.appendingPathComponent("\(library.module).swiftmodule").path
                    let built = try ChildProcess.run(
                        ChildSpec(
                            executable: swiftc,
                            arguments: [
                                "-emit-module", "-parse-as-library", "-swift-version", "6",
                                "-module-name", library.module, "-I", products, "-I", modules.path,
                                "-emit-module-path", module,
                            ] + library.files,
                            budget: 120))
                    guard built.outcome == .completed else {
                        throw StrictnessError("\(package)'s \(library.module) did not build: \(built.stderr)")
                    }
                }
            }
            for var library in libraries {
                library.libraries = build
                units.append(library)
            }
            for folder in Self.subfolders("Tests/\(package)/Tests") {
                units.append(
                    Unit(
                        module: folder, files: Self.swiftFiles(under: "Tests/\(package)/Tests/\(folder)"),
                        extraModules: modules.path, libraries: build))
            }
        }
        return units.filter { !$0.files.isEmpty }
    }

    /// Swift files of the repository's source folders that no unit holds.
    func swiftFilesOutside(_ units: [Unit]) -> [String] {
        let covered = Set(units.flatMap { unit in unit.files.map { unit.copies[$0] ?? $0 } })
        let all = ["Sources", "Experiments", "Tests", "notes"].flatMap { Self.swiftFiles(under: $0) }
            .filter { !$0.contains("/Tests/DarwinStrictness/") && !$0.hasSuffix("/Package.swift") }
        return all.filter { !covered.contains($0) }
    }

    /// `file:line: error text` for each call the markings reject, two modules at a time, the
    /// costliest first (`typeCheckCost`): in the repository's order the two costliest
    /// (LabRunnerTests and HarnessUserSwiftTests, 2 s each) came near the end, where a core
    /// could sit idle while the other finished one (the checks took 6.5-6.8 s; 6.2-6.5 s so).
    func run(_ units: [Unit]) throws -> [String] {
        let asyncNames = Self.namesDeclaredAsync(in: units.flatMap(\.files))
        let checked = units.map { unit in
            (unit, primaries: unit.files.filter { Self.mayHoldAsyncContext($0, asyncNames: asyncNames) })
        }.filter { !$0.primaries.isEmpty }
            .map { ($0, cost: Self.typeCheckCost($0.primaries)) }.sorted { $0.cost > $1.cost }.map(\.0)
        let found = Mutex<[String]>([]), failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: checked.count) { index in
            let (unit, primaries) = checked[index]
            var arguments =
                frontend.arguments + [
                    "-module-name", unit.module, "-swift-version", "6", "-D", "DEBUG", "-I", modules,
                    "-Xcc",
                    "-fmodule-map-file=\(shimModuleMap)",
                    "-Xcc", "-I", "-Xcc", Self.path("Sources/CLabSupport/include"),
                ]
            if let extra = unit.extraModules { arguments += ["-I", extra] }
            if !unit.isProgram { arguments.append("-parse-as-library") }
            arguments += [markings] + (unit.importsXCTest ? [xctestMarkings] : [])
            for file in unit.files { arguments += primaries.contains(file) ? ["-primary-file", file] : [file] }
            do {
                try unit.libraries?.wait()
                let run = try ChildProcess.run(
                    ChildSpec(executable: frontend.executable, arguments: arguments, budget: 180))
                let errors = run.stderr.split(separator: "\n").filter { $0.contains(": error: ") }.map(String.init)
                let rejected = errors.filter { $0.contains("unavailable from asynchronous contexts") }.map { line in
                    unit.copies.reduce(line) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
                }
                found.withLock { $0 += rejected }
                if run.outcome != .completed && rejected.isEmpty {
                    let firstErrors = errors.prefix(5).joined(separator: "\n")
                    let stderrTail = run.stderr.suffix(600)
                    failures.withLock {
                        $0.append("\(unit.module): the type-check ended \(run.outcome): \(firstErrors)\(stderrTail)")
                    }
                }
            } catch {
                failures.withLock { $0.append("\(unit.module): \(error)") }
            }
        }
        // A package whose modules needed no type-check still has its libraries built, as before
        // the builds moved here: one that does not build fails the check.
        for unit in units where !checked.contains(where: { $0.0.libraries === unit.libraries }) {
            do { try unit.libraries?.wait() } catch { failures.withLock { $0.append("\(unit.module): \(error)") } }
        }
        let problems = failures.withLock { $0 }
        if !problems.isEmpty { throw StrictnessError(problems.joined(separator: "\n")) }
        // `path:line:column: error: ...` as `path:line: ...`, in file order.
        return found.withLock { $0 }.map { line in
            let parts = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            return parts.count == 4 ? "\(parts[0]):\(parts[1]): \(parts[3].drop { $0 == " " })" : line
        }.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
    }

    /// Where the build put the package's Swift modules: `Modules/` beside the products (SwiftPM's
    /// native build system), or the products' own directory (swiftbuild: `swift test
    /// --build-system swiftbuild`).
    var modules: String {
        let native = products.appendingPathComponent("Modules")
        return FileManager.default.fileExists(atPath: native.path) ? native.path : products.path
    }

    /// The C shim's module map: `CLabSupport.build/module.modulemap` beside the products (native
    /// build), or `CLabSupport.modulemap` in swiftbuild's
    /// `out/Intermediates.noindex/GeneratedModuleMaps-*` (its products are in
    /// `out/Products/Debug-linux`). Where neither is, the first is named, and the type-check
    /// fails saying so.
    var shimModuleMap: String {
        let native = products.appendingPathComponent("CLabSupport.build/module.modulemap").path
        let intermediates = products.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Intermediates.noindex")
        let generated = (try? FileManager.default.contentsOfDirectory(atPath: intermediates.path)) ?? []
        let swiftbuild = generated.filter { $0.hasPrefix("GeneratedModuleMaps-") }.sorted().map {
            intermediates.appendingPathComponent("\($0)/CLabSupport.modulemap").path
        }
        return ([native] + swiftbuild).first(where: FileManager.default.fileExists) ?? native
    }

    /// A guess at how long the type-check of `primaries` takes, to start the longest first: their
    /// bytes, four times over for a file that imports Testing, whose macros the compiler expands
    /// (HarnessUserSwiftTests' 46 kB took as long as LabRunnerTests' 155 kB, about 2 s each).
    static func typeCheckCost(_ primaries: [String]) -> Int {
        primaries.reduce(0) { total, file in
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return total }
            return total + text.utf8.count * (text.contains("import Testing") ? 4 : 1)
        }
    }

    /// Whether `file` can hold an asynchronous context: it names `async`, `await` or `Task`, or
    /// calls a function of the repository that takes an async closure (a call to an async
    /// function needs `await`, which the file then names).
    static func mayHoldAsyncContext(_ file: String, asyncNames: Set<String>) -> Bool {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return true }
        let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        return words.contains("async") || words.contains("await") || words.contains("Task")
            || !words.isDisjoint(with: asyncNames)
    }

    /// Names of functions whose parameter list says `async`: they take an async closure, whose
    /// body is an async context at a call site that need not say `await`.
    static func namesDeclaredAsync(in files: [String]) -> Set<String> {
        var names: Set<String> = []
        for file in files {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            var rest = Substring(text)
            while let range = rest.range(of: "func ") {
                let after = rest[range.upperBound...]
                rest = after
                let name = after.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !name.isEmpty, let open = after.firstIndex(of: "(") else { continue }
                // The parameter clause: from its "(" to the matching ")".
                var depth = 0, end = open
                for index in after[open...].indices {
                    if after[index] == "(" {
                        depth += 1
                    } else if after[index] == ")" {
                        depth -= 1; if depth == 0 { end = index; break }
                    }
                    if after[index] == "{" { break }
                }
                let parameters = after[open..<end]
                if parameters.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).contains("async") {
                    names.insert(String(name))
                }
            }
        }
        return names
    }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).standardizedFileURL.path }

    static func subfolders(_ relative: String) -> [String] {
        let url = root.appendingPathComponent(relative)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix(".")
                && FileManager.default.fileExists(
                    atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    /// Every `.swift` file under `relative`, build folders left out.
    static func swiftFiles(under relative: String) -> [String] {
        let url = root.appendingPathComponent(relative)
        guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { return [] }
        var files: [String] = []
        for case let file as URL in walk {
            if file.lastPathComponent.hasPrefix(".build") || file.lastPathComponent == ".swiftpm" {
                walk.skipDescendants(); continue
            }
            if file.pathExtension == "swift" { files.append(file.standardizedFileURL.path) }
        }
        return files.sorted()
    }
}

/// A package's libraries, built once, by whichever check needs them first; the others wait
/// for that build, and each throws what it threw.
final class LibraryBuild: Sendable {
    private let build: @Sendable () throws -> Void
    private let result = Mutex<Result<Void, StrictnessError>?>(nil)

    init(_ build: @escaping @Sendable () throws -> Void) { self.build = build }

    func wait() throws {
        try result.withLock { result in
            if result == nil {
                result = Result { try build() }.mapError { $0 as? StrictnessError ?? StrictnessError("\($0)") }
            }
            return result!
        }.get()
    }
}

struct StrictnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
