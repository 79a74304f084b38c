import LabHarness

/// Reads the crashed thread of a crash report that Swift's backtracer wrote (`Thread 4 "…"
/// crashed:`, then a frame a line) for the code of a test (`CrashReport` reads where it crashed).
///
/// Swift Testing runs tests side by side in one process, so a test that traps ends the others
/// too; SwiftPM's line (`error: Process '…' exited with unexpected signal`) names none of them.
/// The thread that crashed is running the test that trapped: its frames hold the test's
/// function (`TrapSuite.trapsSoon() + 64 in …`, inlined frames included in a release build), and
/// the functions `@Test` wrote for it, whose names hold a mangled part that demangles to `… peer
/// macro @Test expansion #1 of trapsSoon in Module.TrapSuite` (in Swift 6.3.1's release report
/// as `[inlined]` frames, and in the name of the closure Swift Testing calls the test through).
enum CrashedTest {
    /// The test of `keys` that a crashed thread (its lines, innermost frame first) runs: the one
    /// whose code is outermost on it, the test Swift Testing called. A test's function that it
    /// called in turn, or a method that shares a test's name, lies further in, so a test's code
    /// on the thread does not make that test the one that crashed. `nil` when no frame runs one
    /// of them, or when the outermost frame that does runs two (tests that share a base name).
    static func test(of keys: [String], runBy thread: [String]) -> String? {
        for line in thread.reversed() {
            let runs = keys.filter { frame(line, runs: $0) }
            if !runs.isEmpty { return runs.count == 1 ? runs[0] : nil }
        }
        return nil
    }

    /// Whether `frame` runs the test `key`: an id of Swift Testing's (`Module.Suite/f(x:)`), a
    /// function as Swift Testing prints it (`f(x:)`), or XCTest's `Class.test`. A display name
    /// (`"Adds two numbers"`) names no code.
    static func frame(_ frame: String, runs key: String) -> Bool {
        guard !key.hasPrefix("\""), let (owner, function) = parts(of: key) else { return false }
        // The function's own frame: `Suite.f(`, the module left out as the backtracer prints it.
        // A test function outside a suite (`Module/f()`) is found by the second way alone.
        if let owner {
            let tail = owner.split(separator: ".").dropFirst(key.contains("/") ? 1 : 0).joined(separator: ".")
            if !tail.isEmpty && holds(frame, name: "\(tail).\(function)(") { return true }
        } else if frame.contains(".\(function)(") {
            return true
        }
        // The functions `@Test` wrote for it.
        return SwiftDemangler.fragments(in: frame).contains { fragment in
            guard let target = SwiftDemangler.macroExpansion(ofFragment: fragment) else { return false }
            return target.macro == "Test" && target.declaration == function && (owner == nil || target.owner == owner)
        }
    }

    /// A key's owner (`Module.Suite.Inner`, `Class`; `nil` for a function alone) and function's
    /// base name (`f`).
    static func parts(of key: String) -> (owner: String?, function: String)? {
        if key.hasSuffix(")") {
            // By id at a module's top level (`Module.f()`), the frames name it without its module.
            let function = TestList.topLevel(key)?.function ?? key[...]
            let name = function[..<(function.firstIndex(of: "(") ?? function.endIndex)]
            guard let slash = name.lastIndex(of: "/") else { return (nil, String(name)) }
            return (name[..<slash].replacingOccurrences(of: "/", with: "."), String(name[name.index(after: slash)...]))
        }
        guard let dot = key.lastIndex(of: ".") else { return nil }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    /// Whether `text` holds `name` where a name starts (`TrapSuite.f(` is not in `MyTrapSuite.f(`).
    static func holds(_ text: String, name: String) -> Bool {
        var from = text.startIndex
        while let range = text.range(of: name, range: from..<text.endIndex) {
            guard range.lowerBound > text.startIndex else { return true }
            let before = text[text.index(before: range.lowerBound)]
            if !(before.isLetter || before.isNumber || before == "_") { return true }
            from = text.index(after: range.lowerBound)
        }
        return false
    }
}
