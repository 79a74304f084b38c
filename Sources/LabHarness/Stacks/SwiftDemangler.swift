import Foundation

/// Swift symbol names made readable by the runtime's own `swift_demangle`, looked up once in
/// the running process (every Swift program has the runtime loaded). Names it does not know
/// are returned unchanged.
public enum SwiftDemangler {
    private typealias Demangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?,
            UnsafeMutablePointer<Int>?, UInt32
        ) -> UnsafeMutablePointer<CChar>?

    /// A C function pointer found once; calling it from any thread is safe. Looked up with the
    /// shim's every-library handle: `RTLD_DEFAULT` is `NULL` on glibc but `(void *)-2` on Darwin
    /// (`<dlfcn.h>`), where a `NULL` handle is not a valid one.
    private static let function: Demangle? = {
        guard let symbol = dlsym(HostPlatform.searchAllLibraries, "swift_demangle") else { return nil }
        return unsafeBitCast(symbol, to: Demangle.self)
    }()

    /// Whether `name` is a Swift mangled name (as a symbol table spells it).
    static func isMangled(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("_T") || name.hasPrefix("$S")
    }

    /// The mangled fragments (`$s…`) in a name the runtime left partly mangled, in order.
    public static func fragments(in name: String) -> [Substring] {
        var found: [Substring] = []
        var rest = Substring(name)
        while let start = rest.range(of: "$s") {
            let fragment = rest[start.lowerBound...].prefix { $0 == "$" || $0 == "_" || $0.isLetter || $0.isNumber }
            found.append(fragment)
            rest = rest[fragment.endIndex...]
        }
        return found
    }

    /// What the macro expansion that a mangled fragment names was for: `$s1M5SuiteV4test4TestfMp_…
    /// fMu_` demangles to `unique name #1 of … in peer macro @Test expansion #1 of test in M.Suite`,
    /// which gives `("Test", "test", "M.Suite")`; `nil` when it names no expansion.
    public static func macroExpansion(
        ofFragment fragment: Substring
    ) -> (macro: String, declaration: String, owner: String)? {
        let text = demangle(String(fragment))
        guard let macro = text.range(of: " macro @"),
            let expansion = text[macro.upperBound...].range(of: " expansion #"),
            let of = text[expansion.upperBound...].range(of: " of "),
            let inside = text[of.upperBound...].range(of: " in ")
        else { return nil }
        return (
            String(text[macro.upperBound..<expansion.lowerBound]), String(text[of.upperBound..<inside.lowerBound]),
            String(text[inside.upperBound...])
        )
    }

    /// `name` demangled by the Swift runtime's `swift_demangle`; `name` itself when it is not a
    /// mangled name or the runtime has no demangler.
    static func demangle(_ name: String) -> String {
        guard isMangled(name), let function else { return name }
        let utf8 = Array(name.utf8CString)
        guard let result = utf8.withUnsafeBufferPointer({ function($0.baseAddress, name.utf8.count, nil, nil, 0) })
        else { return name }
        defer { free(result) }
        return String(cString: result)
    }
}
