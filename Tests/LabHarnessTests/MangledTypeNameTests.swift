@testable import LabHarness
import XCTest

/// The ownership a mangled type name gives (Swift's mangling: `Xo` unowned, `Xu`
/// unowned(unsafe), `Xw` weak, a postfix operator after the type), with the symbolic references
/// and padding a binary's reflection metadata puts in its names.
final class MangledTypeNameTests: XCTestCase {
    private func name(_ text: String, _ prefix: [UInt8] = []) -> MangledTypeName? {
        MangledTypeName(bytes: prefix + Array(text.utf8) + [0])
    }

    func testTheOwnershipOperatorAfterTheTypeIsRead() {
        XCTAssertEqual(name("4main6ParentC")?.ownership, .strong)
        XCTAssertEqual(name("4main6ParentCXo")?.ownership, .unowned)
        XCTAssertEqual(name("4main6ParentCXu")?.ownership, .unownedUnsafe)
        XCTAssertEqual(name("4main6ParentCSgXw")?.ownership, .weak)
        XCTAssertEqual(name("4main6ParentCSgXo")?.ownership, .unowned)  // unowned var parent: Parent?
        XCTAssertEqual(name("4main6ParentCSg")?.ownership, .strong)
        XCTAssertEqual(name("xXo")?.ownership, .unowned)  // a generic parameter's, in a generic closure
    }

    func testASymbolicReferenceIsOneOpaqueToken() {
        // A relative reference (0x01–0x17, 4 bytes) to the class, then the operator.
        let unowned = name("Xo", [0x01, 0x10, 0x20, 0x30, 0x40])
        XCTAssertEqual(unowned?.ownership, .unowned)
        let x = MangledTypeName.Token.character(UInt8(ascii: "X")), o = MangledTypeName.Token.character(UInt8(ascii: "o"))
        XCTAssertEqual(unowned?.tokens, [.symbolicReference, x, o])
        XCTAssertEqual(unowned?.byteCount, 7)
        // Its bytes are an offset, never operators: "Xo" among them says nothing.
        XCTAssertEqual(name("", [0x01, 0x00, 0x00, 0x58, 0x6F])?.ownership, .strong)
        // A NUL among them does not end the name.
        XCTAssertEqual(name("Xu", [0x02, 0x00, 0x00, 0x00, 0x00])?.ownership, .unownedUnsafe)
        // An absolute reference (0x18–0x1F) takes a pointer's worth of bytes.
        let absolute = name("Xw", [0x18] + [UInt8](repeating: 0, count: MemoryLayout<UInt>.size))
        XCTAssertEqual(absolute?.ownership, .weak)
        XCTAssertEqual(absolute?.byteCount, 1 + MemoryLayout<UInt>.size + 2)
    }

    func testPaddingIsSkippedAndACutNameIsNone() {
        XCTAssertEqual(name("Xo", [0xFF, 0xFF, 0x01, 1, 2, 3, 4])?.ownership, .unowned)
        XCTAssertNil(MangledTypeName(bytes: [0x01, 0x00, 0x00]))  // cut inside a symbolic reference
        XCTAssertNil(MangledTypeName(bytes: Array("4main6ParentCXo".utf8)))  // no end
        XCTAssertNil(MangledTypeName(bytes: [0]))
    }

    func testABoxsFieldOwnershipIsRead() {
        let counter = name("Siz_Xx")  // a captured `var count: Int`
        XCTAssertEqual(counter?.isBox, true)
        XCTAssertEqual(counter?.boxedFieldOwnership, .strong)
        let owner = name("Xoz_Xx", [0x01, 1, 2, 3, 4])  // a captured, mutated `unowned var`
        XCTAssertEqual(owner?.boxedFieldOwnership, .unowned)
        XCTAssertEqual(name("SgXwz_Xx", [0x01, 1, 2, 3, 4])?.boxedFieldOwnership, .weak)
        XCTAssertNil(name("Siz_SSzXx")?.boxedFieldOwnership)  // two fields: not told
        XCTAssertEqual(name("xz_ly_xG_XX")?.isBox, true)  // a generic box
        XCTAssertNil(name("xz_ly_xG_XX")?.boxedFieldOwnership)
        XCTAssertEqual(name("4main6ParentC")?.isBox, false)
    }

    func testANameIsReadFromMemory() {
        let bytes: [UInt8] = [0x01, 0, 0, 0, 0] + Array("Xo".utf8) + [0, 0x41]
        bytes.withUnsafeBufferPointer { buffer in
            let address = UInt(bitPattern: buffer.baseAddress)
            XCTAssertEqual(MangledTypeName.read(at: address)?.ownership, .unowned)
            XCTAssertEqual(MangledTypeName.read(at: address)?.byteCount, 7)
        }
        XCTAssertNil(MangledTypeName.read(at: 16))
    }
}
