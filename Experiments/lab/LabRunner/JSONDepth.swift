import Foundation

/// How deeply a JSON text nests, found by one pass over its bytes before any parser sees it.
/// A results file nests five levels or so; a hostile one nested a million deep would make a
/// recursive parser run out of stack, which is a crash, not an error.
enum JSONDepth {
    /// The deepest nesting `lab report` accepts.
    static let limit = 64

    /// The maximum depth of `[` and `{` outside strings, stopping early past `limit`.
    static func exceeds(_ data: Data, limit: Int = JSONDepth.limit) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var depth = 0
            var inString = false
            var escaped = false
            for byte in bytes {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == 0x5C {
                        escaped = true
                    }  // backslash
                    else if byte == 0x22 {
                        inString = false
                    }  // quote
                    continue
                }
                switch byte {
                case 0x22: inString = true
                case 0x5B, 0x7B:  // [ {
                    depth += 1
                    if depth > limit { return true }
                case 0x5D, 0x7D: depth -= 1  // ] }
                default: break
                }
            }
            return false
        }
    }
}
