import CLabSupport

/// How a stored property or a closure capture refers to an object. Only a strong reference
/// keeps the object alive: an unowned one keeps its memory, not the object, and a weak one
/// neither, so neither makes its owner a holder.
enum ReferenceOwnership: Equatable, Sendable {
    case strong, weak, unowned, unownedUnsafe
}

/// A type's mangled name as the compiler writes it into a binary's reflection metadata (a
/// field record's type, a closure capture's type), read far enough to tell a reference's
/// ownership.
///
/// Swift's mangling is postfix (docs/ABI/Mangling.rst in the Swift repository): the last
/// operator is the outermost one, and a reference-storage qualifier is an operator after the
/// type it qualifies: `type 'Xo'` is `unowned`, `type 'Xu'` `unowned(unsafe)`, `type 'Xw'`
/// `weak` (`4main6ParentCXo`, `4main6ParentCSgXw`). A name in a binary may hold symbolic
/// references: a control byte 0x01–0x17 and 4 bytes of relative offset, or 0x18–0x1F and a
/// pointer's worth of bytes; those bytes are arbitrary (a NUL among them does not end the
/// name), so they are kept as one opaque token and never read as operator characters. A 0xFF
/// byte is alignment padding and means nothing.
struct MangledTypeName: Equatable, Sendable {
    enum Token: Equatable, Sendable {
        case character(UInt8)
        case symbolicReference
    }

    let tokens: [Token]
    /// The name's length in bytes up to its NUL, symbolic references and padding included:
    /// what the runtime's type lookup takes.
    let byteCount: Int

    /// Parses bytes up to the first NUL outside a symbolic reference. `nil` for an empty name,
    /// or one whose end (or a symbolic reference) is cut off.
    init?(bytes: some Sequence<UInt8>) {
        var tokens: [Token] = []
        var skip = 0, count = 0, ended = false
        for byte in bytes {
            count += 1
            if skip > 0 {
                skip -= 1
                continue
            }
            switch byte {
            case 0:
                ended = true
            case 0x01...0x17:
                tokens.append(.symbolicReference)
                skip = 4
            case 0x18...0x1F:
                tokens.append(.symbolicReference)
                skip = MemoryLayout<UInt>.size
            case 0xFF:
                break
            default:
                tokens.append(.character(byte))
            }
            if ended { break }
        }
        guard ended, !tokens.isEmpty else { return nil }
        self.tokens = tokens
        byteCount = count - 1
    }

    /// The ownership the outermost operator gives: `Xo`, `Xu`, `Xw`, or strong.
    var ownership: ReferenceOwnership {
        Self.ownership(of: tokens[...])
    }

    /// Whether this is a SIL box (`type-list 'Xx'`, generic `'XX'`, old `'Xb'`): what a closure
    /// captures for a `var` it shares with its enclosing scope.
    var isBox: Bool {
        ["Xx", "XX", "Xb"].contains { Self.endsWith(tokens[...], $0) }
    }

    /// For a box of one field (`T 'z'? '_' 'Xx'`; `z` marks it mutable), the ownership of that
    /// field: a captured `unowned var` is boxed as `…Xoz_Xx`. `nil` for anything else, whose
    /// field cannot be told this simply.
    var boxedFieldOwnership: ReferenceOwnership? {
        guard Self.endsWith(tokens[...], "Xx") else { return nil }
        var field = tokens.dropLast(2)
        guard field.last == .character(UInt8(ascii: "_")) else { return nil }
        field = field.dropLast()
        if field.last == .character(UInt8(ascii: "z")) { field = field.dropLast() }
        guard !field.isEmpty else { return nil }
        return Self.ownership(of: field)
    }

    private static func ownership(of tokens: ArraySlice<Token>) -> ReferenceOwnership {
        if endsWith(tokens, "Xo") { return .unowned }
        if endsWith(tokens, "Xu") { return .unownedUnsafe }
        if endsWith(tokens, "Xw") { return .weak }
        return .strong
    }

    private static func endsWith(_ tokens: ArraySlice<Token>, _ suffix: String) -> Bool {
        let wanted = suffix.utf8.map(Token.character)
        return tokens.count >= wanted.count && Array(tokens.suffix(wanted.count)) == wanted
    }

    /// Reads the name at `address` (in this process's memory, through `clab_read_own_memory`,
    /// so a bad address reads nothing), at most `limit` bytes.
    static func read(at address: UInt, limit: Int = 1024) -> MangledTypeName? {
        guard address > 4096 else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while bytes.count < limit {
            let start = address + UInt(bytes.count)
            let read = chunk.withUnsafeMutableBytes { buffer in
                clab_read_own_memory(UnsafeRawPointer(bitPattern: start), buffer.baseAddress, UInt(buffer.count))
            }
            guard read > 0 else { break }
            bytes += chunk.prefix(read)
            if let name = MangledTypeName(bytes: bytes) { return name }
        }
        return nil
    }
}
