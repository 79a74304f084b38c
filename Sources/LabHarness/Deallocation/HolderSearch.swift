@_spi(Reflection) import Swift
import CLabSupport

/// Finds what holds a leaked object, where the harness can see it: a stored property of an
/// object it knows (another tracked object, or the leaked object itself), holding it directly
/// or through the context of a closure stored there. Each word is read with
/// `clab_read_own_memory`, so a wrong guess about a layout reads nothing instead of faulting.
///
/// The stored properties and their offsets come from the standard library's reflection
/// (`_forEachField`, its class layout: the same metadata `Mirror` reads); a closure stored in a
/// property is a function pointer and a context, and the context's first words (after its
/// header) are its captures. What it cannot see: a holder the harness does not know (a global,
/// a singleton's dictionary, a queue's pending block, a task), a capture past the context's first
/// 32 words, an Objective-C object's fields.
enum HolderSearch {
    /// `held by …` phrases: where among `candidates` a strong reference to `target` is stored.
    /// `candidates` are (label, object) pairs; the target may be among them (a cycle through
    /// itself).
    static func holders(
        of target: AnyObject, targetLabel: String,
        among candidates: [(label: String, object: AnyObject)]
    ) -> [String] {
        let targetAddress = UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque())
        var found: [String] = []
        for (label, object) in candidates {
            let base = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
            let isSelf = object === target
            let owner = isSelf ? "its own" : "\(label)'s"
            var type: Any.Type? = Swift.type(of: object)
            while let current = type {
                _ = _forEachField(of: current, options: _EachFieldOptions(rawValue: 1 << 0)) {
                    name, offset, fieldType, _ in  // .classType (a var there)
                    let field = String(cString: name)
                    let address = base + UInt(offset)
                    if let word = readWord(address), word == targetAddress {
                        found.append("\(owner) stored property `\(field)`" + (isSelf ? " (it holds itself)" : ""))
                    } else if isFunction(fieldType), let context = readWord(address + 8), context != 0,
                        context == targetAddress || contextHolds(context, targetAddress)
                    {
                        found.append(
                            "a closure stored in \(owner) property `\(field)`, which captured \(isSelf ? "it (a retain cycle)" : targetLabel)"
                        )
                    }
                    return true
                }
                type = _getSuperclass(current)
            }
        }
        return found
    }

    /// Whether a function type, or an optional of one (`"() -> ()"`, `Optional<(Int) -> ()>`).
    private static func isFunction(_ type: Any.Type) -> Bool {
        let name = String(describing: type)
        return name.contains(" -> ") && (name.hasPrefix("(") || name.hasPrefix("Optional<(") || name.hasPrefix("@"))
    }

    /// Whether the closure context at `context` (a heap object: two header words, then the
    /// captures) holds `target` in its first 32 words, directly or through a box it holds (a
    /// captured `var` lives in a box of its own).
    private static func contextHolds(_ context: UInt, _ target: UInt) -> Bool {
        guard let words = readWords(context, count: 34) else { return false }
        let captures = words.dropFirst(2)
        if captures.contains(target) { return true }
        for word in captures where word > 4096 && word & 7 == 0 {
            if let inner = readWords(word, count: 6), inner.dropFirst(2).contains(target) { return true }
        }
        return false
    }

    private static func readWord(_ address: UInt) -> UInt? {
        readWords(address, count: 1)?.first
    }

    private static func readWords(_ address: UInt, count: Int) -> [UInt]? {
        guard address > 4096, address & 7 == 0 else { return nil }
        var words = [UInt](repeating: 0, count: count)
        let bytes = words.withUnsafeMutableBytes { buffer in
            clab_read_own_memory(UnsafeRawPointer(bitPattern: address), buffer.baseAddress, UInt(buffer.count))
        }
        guard bytes > 0 else { return nil }
        return Array(words.prefix(bytes / MemoryLayout<UInt>.size))
    }
}
