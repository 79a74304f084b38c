/// Threads whose stacks are the same, folded into one entry of a grouped view.
public struct StackGroup: Sendable, Equatable {
    /// The threads, in tid order.
    public var threads: [ThreadStack]
    /// Their common frames, innermost first.
    public var frames: [String]

    /// The call the threads are blocked in: the library frame called by the first frame that
    /// names lab or user code (or the innermost frame when there is no library frame).
    var blockingCall: String? {
        guard let first = StackGroup.firstUserFrame(frames) else { return frames.first.map(StackGroup.bare) }
        return first > 0 ? StackGroup.bare(frames[first - 1]) : StackGroup.bare(frames[first])
    }

    /// The frames that name lab or user code, innermost first, with their `file:line`
    /// (compiler-made thunks left out).
    public var userFrames: [String] {
        frames.filter { !StackGroup.isLibraryFrame($0) && !$0.contains("+0x") && $0 != "??" && !$0.contains("thunk") }
    }

    /// `6 threads (lab.caller): waiting in OS_dispatch_semaphore.wait() ← Callers.global ← …`:
    /// the runtime noise trimmed to the blocking call and at most `depth` user frames. Threads
    /// are named by `ThreadLabel.readable` (libdispatch's pool workers as `dispatch worker`).
    public func summary(depth: Int = 3, placesEveryFrame: Bool = false) -> String {
        let names = Array(Set(threads.map { ThreadLabel.readable($0.thread) })).sorted()
        let who = names.count <= 2 ? names.joined(separator: ", ") : "\(names[0]), \(names[1]), …"
        let count = threads.count == 1 ? "1 thread" : "\(threads.count) threads"
        guard !frames.isEmpty else { return "\(count) (\(who)): no stack" }
        var chain = [StackGroup.short(blockingCall ?? "?")]
        // Nested closures of one function read the same once shortened: keep the first.
        var user: [String] = []
        for frame in userFrames where StackGroup.bare(frame) != blockingCall {
            if let last = user.last, StackGroup.short(StackGroup.bare(last)) == StackGroup.short(StackGroup.bare(frame))
            {
                continue
            }
            user.append(frame)
        }
        for (index, frame) in user.prefix(depth).enumerated() {
            let place = StackGroup.place(frame)
            chain.append(
                StackGroup.short(StackGroup.bare(frame))
                    + ((index == 0 || placesEveryFrame) && place != nil ? " (\(place!))" : ""))
        }
        if user.count > depth { chain.append("…") }
        return "\(count) (\(who)): in " + chain.joined(separator: " ← ")
    }

    /// A demangled Swift name cut to what a reader needs: `static RunloopExperiment.Callers
    /// .launch(_:count:client:) -> ()` reads `Callers.launch`, a closure `closure in Callers.launch`.
    /// Code the optimizer folded with identical code reads `merged …`: its name is that of one
    /// of the functions folded, not necessarily the one that ran.
    public static func short(_ symbol: String) -> String {
        var name = withoutCompilerPrefixes(symbol)
        let merged = symbol.hasPrefix("merged ") ? "merged " : ""
        var prefix = ""
        // Nested closures (`closure #1 () -> () in closure #2 … in Foo.bar`) read as the
        // function that holds them; so does a local function a macro wrote (`$s…fMu_ #1 … in`).
        while name.hasPrefix("closure") || name.hasPrefix("implicit closure") || isMacroLocal(name),
            let range = name.range(of: " in ")
        {
            prefix = "closure in "
            name = String(name[range.upperBound...])
        }
        // The function a macro wrote, closures in it included: `@Test expansion of Suite.test`.
        if let expansion = macroExpansion(in: name) { return merged + expansion }
        if name.hasPrefix("variable initialization expression of ") {
            name.removeFirst("variable initialization expression of ".count)
        }
        if name.hasPrefix("static ") { name.removeFirst("static ".count) }
        // A method of an extension declared in another module: `(extension in M):T.method`.
        if name.hasPrefix("(extension in "), let colon = name.range(of: "):") {
            name = String(name[colon.upperBound...])
        }
        name = privateNamesRevealed(name)
        if let open = name.firstIndex(of: "("), open != name.startIndex { name = String(name[..<open]) }
        // A generic function's own parameters (`run<A where A: P>`), not a generic type's (`Box<Int>.wait`).
        if name.hasSuffix(">"), let open = name.lastIndex(of: "<"), open != name.startIndex,
            !name[open...].contains(".") || name[open...].contains(" where ")
        {
            name = String(name[..<open])
        }
        if let colon = name.range(of: " : ") { name = String(name[..<colon.lowerBound]) }
        let parts = name.split(separator: ".")
        if parts.count > 2 { name = parts.dropFirst().joined(separator: ".") }
        return merged + prefix + name
    }

    /// What the optimizer adds to the name of the code it made from a function: `merged `
    /// (identical functions folded into one, named after one of them), a closure's context
    /// thunk (`partial apply forwarder for `, `partial apply for ` in the runtime's own
    /// backtraces), a `generic specialization <…> of `, an async function's pieces (`(2) await
    /// resume partial function for `). The code is the function's own, so it reads as the
    /// function.
    static func withoutCompilerPrefixes(_ symbol: String) -> String {
        var name = Substring(symbol)
        var changed = true
        while changed {
            changed = false
            for prefix in ["merged ", "partial apply forwarder for ", "partial apply for "] where name.hasPrefix(prefix)
            {
                name = name.dropFirst(prefix.count)
                changed = true
            }
            if name.hasPrefix("generic specialization <"), let of = name.range(of: "> of ") {
                name = name[of.upperBound...]
                changed = true
            }
            // A piece of an async function, between two of its suspension points.
            if name.hasPrefix("("), let close = name.firstIndex(of: ")"),
                name[name.index(after: name.startIndex)..<close].allSatisfy(\.isNumber)
            {
                let rest = name[name.index(after: close)...]
                for piece in [" await resume partial function for ", " suspend resume partial function for "]
                where rest.hasPrefix(piece) {
                    name = rest.dropFirst(piece.count)
                    changed = true
                }
            }
        }
        return String(name)
    }

    /// Whether `name` starts with a local name a macro's expansion made, which the runtime's
    /// demangler leaves mangled: `$s…6expectfMf_7__localfMu_ #1 @Sendable () -> () in …`.
    static func isMacroLocal(_ name: String) -> Bool {
        guard name.hasPrefix("$s"), let space = name.firstIndex(of: " ") else { return false }
        let token = name[..<space]
        return token.hasSuffix("_") && token.contains("fMu")
    }

    /// The function a macro's expansion declared, by what the macro was expanded for. Swift
    /// Testing's `@Test` writes one per test; its demangled name keeps the expansion's unique
    /// name mangled, as a private name: `static M.Suite.($s1M5SuiteV4test4TestfMp_…fMu_ in
    /// _9552…)@Sendable () async throws -> ()`. Demangled on its own, that name says `unique
    /// name #1 of … in peer macro @Test expansion #1 of test in M.Suite`, which reads `@Test
    /// expansion of Suite.test`; `nil` when `name` holds no such fragment. Swift's crash reports
    /// print the fragment bare: `static Suite.$s1M5SuiteV4test4TestfMp_…fMu_@Sendable ()`.
    static func macroExpansion(in name: String) -> String? {
        guard let fragment = SwiftDemangler.fragments(in: name).first,
            let target = SwiftDemangler.macroExpansion(ofFragment: fragment)
        else { return nil }
        let declaration = target.owner + "." + target.declaration
        let parts = declaration.split(separator: ".")
        let shortened = parts.count > 2 ? parts.dropFirst().joined(separator: ".") : declaration
        return "@\(target.macro) expansion of \(shortened)"
    }

    /// A private or fileprivate declaration demangles as `(name in _4A1B…)`, the file's
    /// discriminator beside it: `Client.(handleJSON in _0C9D)(_:)` reads `Client.handleJSON(_:)`.
    static func privateNamesRevealed(_ symbol: String) -> String {
        var name = symbol
        var searchFrom = name.startIndex
        while let open = name[searchFrom...].firstIndex(of: "("),
            let marker = name[open...].range(of: " in _"),
            let close = name[marker.upperBound...].firstIndex(of: ")")
        {
            let inner = name[name.index(after: open)..<marker.lowerBound]
            let discriminator = name[marker.upperBound..<close]
            let isPrivateName =
                !inner.isEmpty && inner.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                && discriminator.allSatisfy { $0.isHexDigit || $0.isLetter || $0.isNumber }
            guard isPrivateName else { searchFrom = name.index(after: open); continue }
            name.replaceSubrange(open...close, with: inner)
            searchFrom = open
        }
        return name
    }

    /// The `file:line` of a frame, if it has one.
    static func place(_ frame: String) -> String? {
        guard frame.hasSuffix(")"), !isLibraryFrame(frame), let open = frame.range(of: " (", options: .backwards) else {
            return nil
        }
        let inside = frame[open.upperBound..<frame.index(before: frame.endIndex)]
        // A macro's expansion has a file of the compiler's (`@__swiftmacro_…swift:5`), no reader's.
        guard !inside.hasPrefix("@__swiftmacro_") else { return nil }
        return inside.contains(".swift:") || inside.contains(".c:") ? String(inside) : nil
    }

    /// Folds `stacks` by identical frames; the largest groups first, then by first tid.
    public static func fold(_ stacks: [ThreadStack]) -> [StackGroup] {
        var order: [[String]] = []
        var members: [[String]: [ThreadStack]] = [:]
        for stack in stacks.sorted(by: { $0.tid < $1.tid }) {
            if members[stack.frames] == nil { order.append(stack.frames) }
            members[stack.frames, default: []].append(stack)
        }
        let groups = order.map { StackGroup(threads: members[$0]!, frames: $0) }
        return groups.enumerated().sorted { a, b in
            a.element.threads.count != b.element.threads.count
                ? a.element.threads.count > b.element.threads.count : a.offset < b.offset
        }.map(\.element)
    }

    /// A frame of the system or the Swift runtime (`symbol (in libdispatch.so)`), or one that
    /// nothing named.
    static func isLibraryFrame(_ frame: String) -> Bool {
        frame.hasSuffix(")") && frame.contains(" (in ")
    }

    static func firstUserFrame(_ frames: [String]) -> Int? {
        frames.firstIndex { !isLibraryFrame($0) && !$0.contains("+0x") && $0 != "??" }
    }

    /// The symbol alone, without `(file:line)` or `(in image)`.
    static func bare(_ frame: String) -> String {
        guard frame.hasSuffix(")"), let open = frame.range(of: " (", options: .backwards) else { return frame }
        return String(frame[..<open.lowerBound])
    }
}
