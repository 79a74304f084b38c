import CLabSupport

/// Finds what holds a leaked object, where the harness can see it: a stored property of an
/// object it knows (another tracked object, or the leaked object itself), holding it directly,
/// in a field of a struct stored there, or through a closure stored there (alone, in an
/// optional, or in an array of closures). Every word is read with `clab_read_own_memory`, so a
/// wrong guess about a layout reads nothing instead of faulting.
///
/// Only strong references are holders: an `unowned` or `unowned(unsafe)` reference stores the
/// object's address too, but keeps only its memory, not the object (a `weak` one stores
/// something else). So each place's ownership is read, not guessed from its contents:
/// - a stored property's from its field record, whose mangled type name carries the ownership
///   (`Xo`, `Xu`, `Xw`); the Swift runtime's reflection reads it (`isStrong` of
///   `swift_reflectionMirror_recursiveChildMetadata`, the entry point under `_forEachField` and
///   `Mirror`), with the field's type and offset;
/// - a closure capture's from the capture descriptor that the closure context's metadata points
///   to: one mangled type name per capture, in layout order (`MangledTypeName`); the captures'
///   offsets follow from their types' sizes.
///
/// A context whose metadata gives no descriptor, or a capture whose type the runtime cannot
/// resolve (a generic one), leaves the ownership unknown: a word there that is the object's
/// address is reported as a reference that may be strong or unowned, never as a retain cycle.
/// What it cannot see: a holder the harness does not know (a global, a singleton's dictionary,
/// a queue's pending block, a task), a closure kept in a dictionary or a set, an Objective-C
/// object's fields.
enum HolderSearch {
    /// `held by …` phrases: where among `candidates` a strong reference to `target` is stored.
    /// `candidates` are (label, object) pairs; the target may be among them (a cycle through
    /// itself).
    static func holders(
        of target: AnyObject, targetLabel: String,
        among candidates: [(label: String, object: AnyObject)]
    ) -> [String] {
        let search = Search(target: OwnMemory.address(of: target))
        var found: [String] = []
        for (label, object) in candidates {
            let isSelf = object === target
            let type: Any.Type = Swift.type(of: object)
            for finding in search.inObject(of: type, at: OwnMemory.address(of: object), depth: 0) {
                found.append(describe(finding, owner: isSelf ? "its own" : "\(label)'s", isSelf: isSelf, targetLabel))
            }
        }
        return found
    }

    /// One `held by …` phrase. A retain cycle is claimed only where the object's own property
    /// holds it through a strong capture; a capture of unknown ownership says so.
    static func describe(_ finding: Finding, owner: String, isSelf: Bool, _ targetLabel: String) -> String {
        let property = "`\(finding.path.joined(separator: "."))`"
        guard let capture = finding.closure else {
            return "\(owner) stored property \(property)" + (isSelf ? " (it holds itself)" : "")
        }
        let closure = "a closure stored in \(owner) property \(property)"
            + (finding.element.map { " (element \($0))" } ?? "")
        let held = isSelf ? "it (a retain cycle)" : targetLabel
        switch capture {
        case .strong:
            return closure + ", which captured \(held)"
        case .through(let type, let path):
            let field = path.joined(separator: ".")
            return closure + ", which captured a \(type) whose stored property `\(field)` holds \(held)"
        case .uncertain:
            return closure + ", which references \(isSelf ? "it" : targetLabel) (strong or unowned: its capture "
                + "metadata does not say which)"
        }
    }

    /// A place among an object's stored properties that holds the target.
    struct Finding: Equatable {
        /// The property, then the fields down to the place when it is inside a struct.
        var path: [String]
        /// Which element, when the property is an array of closures.
        var element: Int? = nil
        /// `nil`: the place holds the target itself; otherwise it is a closure, which does.
        var closure: Capture? = nil
    }

    /// How a closure holds the target.
    enum Capture: Equatable {
        /// A strong capture of it (or a captured box or closure that holds it strongly).
        case strong
        /// A strong capture of an object whose stored property (path) holds it.
        case through(type: String, path: [String])
        /// A word of its context is the target's address, of a capture whose ownership the
        /// metadata does not give: strong or unowned.
        case uncertain

        var rank: Int {
            switch self {
            case .strong: 3
            case .through: 2
            case .uncertain: 1
            }
        }
    }

    struct Search {
        let target: UInt
        static let maxDepth = 4
        static let maxArrayElements = 256

        /// Strong stored properties of the class instance at `base`, its superclasses' included.
        func inObject(of type: Any.Type, at base: UInt, depth: Int) -> [Finding] {
            inFields(StoredFields.of(type), at: base, depth: depth)
        }

        /// In the strong ones of `fields` (a class instance's, a struct's or a tuple's) stored
        /// at `base`, each place's path starting with its field's name (a tuple's unlabelled
        /// element, ".0", is named "0").
        private func inFields(_ fields: [StoredFields.Field], at base: UInt, depth: Int) -> [Finding] {
            fields.flatMap { field -> [Finding] in
                guard field.isStrong else { return [] }  // weak, unowned, unowned(unsafe)
                let name = field.name.hasPrefix(".") ? String(field.name.dropFirst()) : field.name
                return inValue(of: field.type, at: base + UInt(field.offset), depth: depth).map {
                    var finding = $0
                    finding.path.insert(name, at: 0)
                    return finding
                }
            }
        }

        /// In a value of `type` stored at `address`.
        func inValue(of type: Any.Type, at address: UInt, depth: Int) -> [Finding] {
            let kind = TypeShape.kind(of: type)
            if TypeShape.isThickFunction(type) || TypeShape.isOptionalThickFunction(type) {
                guard let function = OwnMemory.word(at: address), function != 0,
                    let context = OwnMemory.word(at: address + 8),
                    let capture = closure(context: context, depth: depth)
                else { return [] }
                return [Finding(path: [], closure: capture)]
            }
            if let element = TypeShape.arrayElement(of: type),
                TypeShape.isThickFunction(element) || TypeShape.isOptionalThickFunction(element)
            {
                return inArray(of: element, at: address, depth: depth)
            }
            if kind == TypeShape.structKind || kind == TypeShape.tupleKind, depth < Self.maxDepth {
                let fields = StoredFields.of(type)
                if !fields.isEmpty { return inFields(fields, at: address, depth: depth + 1) }
            }
            return OwnMemory.word(at: address) == target ? [Finding(path: [])] : []
        }

        /// An array's native storage: a heap object header, count, capacity, then the elements.
        /// (An array of closures is never bridged to an `NSArray`.)
        private func inArray(of element: Any.Type, at address: UInt, depth: Int) -> [Finding] {
            guard let storage = OwnMemory.word(at: address), let count = OwnMemory.word(at: storage + 16),
                count <= Self.maxArrayElements
            else { return [] }
            let stride = UInt(TypeShape.layout(of: element).stride)
            return (0..<Int(count)).flatMap { index in
                inValue(of: element, at: storage + 32 + UInt(index) * stride, depth: depth).map {
                    var finding = $0
                    finding.element = index
                    return finding
                }
            }
        }

        /// What a closure whose context is `context` holds of the target.
        func closure(context: UInt, depth: Int) -> Capture? {
            if context == 0 { return nil }
            if context == target { return .strong }  // its only capture, the context itself
            guard depth < Self.maxDepth, let metadata = OwnMemory.word(at: context),
                let kind = OwnMemory.word(at: metadata)
            else { return nil }
            if kind == TypeShape.heapLocalVariableKind {
                if let descriptor = OwnMemory.word(at: metadata + 16), descriptor != 0,
                    let firstOffset = OwnMemory.uint32(at: metadata + 8),
                    let captures = CaptureDescriptor.read(at: descriptor)
                {
                    return inCaptures(captures, of: context, from: Int(firstOffset), depth: depth)
                }
                return mayHold(context, fromWord: 2) ? .uncertain : nil
            }
            if TypeShape.isClassKind(kind) {
                // A closure whose one capture is an object uses that object as its context.
                let type = unsafeBitCast(metadata, to: Any.Type.self)
                let findings = inObject(of: type, at: context, depth: depth + 1)
                if let direct = findings.first(where: { $0.closure == nil }) {
                    return .through(type: String(describing: type), path: direct.path)
                }
                return findings.compactMap(\.closure).max { $0.rank < $1.rank }
            }
            return mayHold(context, fromWord: 2) ? .uncertain : nil
        }

        /// Walks the captures in layout order: after the header (`firstOffset` bytes), the
        /// descriptor's necessary bindings (a word each), then each capture at its type's
        /// alignment.
        private func inCaptures(
            _ captures: CaptureDescriptor, of context: UInt, from firstOffset: Int, depth: Int
        ) -> Capture? {
            var best: Capture?
            func note(_ capture: Capture?) {
                if let capture, capture.rank > (best?.rank ?? 0) { best = capture }
            }
            let word = MemoryLayout<UInt>.size
            var offset = firstOffset + captures.bindings * word
            for name in captures.names {
                if name.type.isBox {
                    offset = align(offset, word)
                    note(inBox(at: context + UInt(offset), name.type))
                    offset += word
                    continue
                }
                let ownership = name.type.ownership
                let type = name.resolved
                let pointerLayout = ownership == .strong ? nil : (size: word, alignment: word, stride: word)
                guard let layout = type.map(TypeShape.layout(of:)) ?? pointerLayout else {
                    // A type the runtime cannot resolve here (a generic parameter): its size is
                    // unknown, so are the offsets from here on.
                    if mayHold(context, fromWord: align(offset, word) / word) { note(.uncertain) }
                    break
                }
                offset = align(offset, layout.alignment)
                if ownership == .strong, let type {
                    let findings = inValue(of: type, at: context + UInt(offset), depth: depth + 1)
                    if findings.contains(where: { $0.closure == nil }) { note(.strong) }
                    for finding in findings { note(finding.closure) }
                }  // unowned, unowned(unsafe), weak: keeps nothing alive
                offset += layout.size
            }
            return best
        }

        /// A captured `var` lives in a box: a heap object whose value follows its header.
        private func inBox(at address: UInt, _ type: MangledTypeName) -> Capture? {
            guard let box = OwnMemory.word(at: address) else { return nil }
            if let ownership = type.boxedFieldOwnership {
                guard ownership == .strong else { return nil }
                if OwnMemory.word(at: box + 16) == target { return .strong }
                return nil
            }
            return mayHold(box, fromWord: 2, words: 6, lookInside: false) ? .uncertain : nil
        }

        /// Whether a word of the heap object at `object`, from word `fromWord` to its 34th, is
        /// the target's address, or (with `lookInside`) the address of an object whose words 2
        /// to 5 include it (a captured variable's box). Used where the layout is not known.
        private func mayHold(_ object: UInt, fromWord: Int, words: Int = 34, lookInside: Bool = true) -> Bool {
            guard fromWord < words, let read = OwnMemory.words(at: object + UInt(fromWord * 8), count: words - fromWord)
            else { return false }
            if read.contains(target) { return true }
            guard lookInside else { return false }
            return read.contains { word in
                word > 4096 && word & 7 == 0
                    && (OwnMemory.words(at: word, count: 6).map { $0.dropFirst(2).contains(target) } ?? false)
            }
        }

        private func align(_ offset: Int, _ alignment: Int) -> Int {
            (offset + alignment - 1) / alignment * alignment
        }
    }
}

/// A closure context's capture descriptor (the compiler's reflection record for it, pointed to
/// by the context's metadata): three counts (captures, metadata sources, necessary bindings),
/// then a 32-bit relative pointer to each capture's mangled type name.
struct CaptureDescriptor {
    struct Name {
        let type: MangledTypeName
        let address: UInt

        /// The capture's type, as the runtime resolves the name where it lies (its symbolic
        /// references are relative to it); `nil` for one that needs generic arguments.
        var resolved: Any.Type? {
            guard !type.isBox, let pointer = UnsafePointer<UInt8>(bitPattern: address) else { return nil }
            return _getTypeByMangledNameInContext(
                pointer, UInt(type.byteCount), genericContext: nil, genericArguments: nil)
        }
    }

    let names: [Name]
    let bindings: Int

    static func read(at address: UInt) -> CaptureDescriptor? {
        guard let count = OwnMemory.uint32(at: address), count <= 64,
            let bindings = OwnMemory.uint32(at: address + 8), bindings <= 64
        else { return nil }
        var names: [Name] = []
        for index in 0..<UInt(count) {
            let field = address + 12 + 4 * index
            guard let relative = OwnMemory.int32(at: field), relative != 0 else { return nil }
            let target = UInt(bitPattern: Int(bitPattern: field) + Int(relative))
            guard let type = MangledTypeName.read(at: target) else { return nil }
            names.append(Name(type: type, address: target))
        }
        return CaptureDescriptor(names: names, bindings: Int(bindings))
    }
}

/// A type's stored fields, their offsets and whether each is a strong reference, from the
/// Swift runtime's reflection of the type's field records (classes with their superclasses'
/// fields, structs, tuples; nothing for other kinds).
enum StoredFields {
    struct Field {
        let name: String
        let offset: Int
        let type: Any.Type
        let isStrong: Bool
    }

    static func of(_ type: Any.Type) -> [Field] {
        let kind = TypeShape.kind(of: type)
        guard TypeShape.isClassKind(kind) || kind == TypeShape.structKind || kind == TypeShape.tupleKind else {
            return []  // an enum's reflection reads a value, which there is none of here
        }
        return (0..<reflectionFieldCount(type)).map { index in
            var metadata = FieldReflectionMetadata()
            let fieldType = reflectionFieldType(type, index: index, metadata: &metadata)
            defer { metadata.freeFunc?(metadata.name) }
            return Field(
                name: metadata.name.map { String(cString: $0) } ?? "#\(index)",
                offset: reflectionFieldOffset(type, index: index), type: fieldType, isStrong: metadata.isStrong)
        }
    }
}

/// The runtime's `_FieldReflectionMetadata` (swift/shims/Reflection.h): filled in per field.
private struct FieldReflectionMetadata {
    var name: UnsafePointer<CChar>? = nil
    var freeFunc: (@convention(c) (UnsafePointer<CChar>?) -> Void)? = nil
    var isStrong = false
    var isVar = false
}

@_silgen_name("swift_reflectionMirror_recursiveCount")
private func reflectionFieldCount(_ type: Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func reflectionFieldType(
    _ type: Any.Type, index: Int, metadata: UnsafeMutablePointer<FieldReflectionMetadata>
) -> Any.Type

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func reflectionFieldOffset(_ type: Any.Type, index: Int) -> Int

/// What a type's metadata says of its shape: its kind (the first word of its metadata; the
/// values of the runtime's `MetadataKind`), a function type's convention, a layout.
enum TypeShape {
    static let structKind: UInt = 0x200
    static let optionalKind: UInt = 0x202
    static let tupleKind: UInt = 0x301
    static let functionKind: UInt = 0x302
    static let heapLocalVariableKind: UInt = 0x400

    static func kind(of type: Any.Type) -> UInt {
        OwnMemory.word(at: unsafeBitCast(type, to: UInt.self)) ?? .max
    }

    /// A class's metadata has kind 0, or (with Objective-C interop) an isa pointer there.
    static func isClassKind(_ kind: UInt) -> Bool {
        kind == 0 || (kind > 0x7FF && kind != .max)
    }

    /// A Swift function value of two words, a function pointer and a context: the function
    /// metadata's flags word gives the convention in bits 16–23, 0 for Swift (thick); thin,
    /// block and C conventions have no context word.
    static func isThickFunction(_ type: Any.Type) -> Bool {
        guard kind(of: type) == functionKind,
            let flags = OwnMemory.word(at: unsafeBitCast(type, to: UInt.self) + 8)
        else { return false }
        return (flags >> 16) & 0xFF == 0
    }

    static func isOptionalThickFunction(_ type: Any.Type) -> Bool {
        guard kind(of: type) == optionalKind, let wrapped = (type as? any OptionalShape.Type)?.wrappedType else {
            return false
        }
        return isThickFunction(wrapped)
    }

    static func arrayElement(of type: Any.Type) -> Any.Type? {
        (type as? any ArrayShape.Type)?.elementType
    }

    static func layout(of type: Any.Type) -> (size: Int, alignment: Int, stride: Int) {
        func measure<T>(_: T.Type) -> (size: Int, alignment: Int, stride: Int) {
            (MemoryLayout<T>.size, MemoryLayout<T>.alignment, MemoryLayout<T>.stride)
        }
        return _openExistential(type, do: measure)
    }
}

private protocol OptionalShape { static var wrappedType: Any.Type { get } }
extension Optional: OptionalShape { fileprivate static var wrappedType: Any.Type { Wrapped.self } }

private protocol ArrayShape { static var elementType: Any.Type { get } }
extension Array: ArrayShape { fileprivate static var elementType: Any.Type { Element.self } }

/// Reads this process's memory through `clab_read_own_memory`: an address that is not mapped
/// reads `nil` instead of faulting.
enum OwnMemory {
    static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    static func word(at address: UInt) -> UInt? {
        guard address & 7 == 0 else { return nil }
        return words(at: address, count: 1)?.first
    }

    static func words(at address: UInt, count: Int) -> [UInt]? {
        guard address > 4096, address & 7 == 0, count > 0 else { return nil }
        var words = [UInt](repeating: 0, count: count)
        let bytes = words.withUnsafeMutableBytes { buffer in
            clab_read_own_memory(UnsafeRawPointer(bitPattern: address), buffer.baseAddress, UInt(buffer.count))
        }
        guard bytes >= MemoryLayout<UInt>.size else { return nil }
        return Array(words.prefix(bytes / MemoryLayout<UInt>.size))
    }

    static func uint32(at address: UInt) -> UInt32? {
        guard address > 4096, address & 3 == 0 else { return nil }
        var value: UInt32 = 0
        let bytes = withUnsafeMutableBytes(of: &value) { buffer in
            clab_read_own_memory(UnsafeRawPointer(bitPattern: address), buffer.baseAddress, 4)
        }
        return bytes == 4 ? value : nil
    }

    static func int32(at address: UInt) -> Int32? {
        uint32(at: address).map { Int32(bitPattern: $0) }
    }
}
