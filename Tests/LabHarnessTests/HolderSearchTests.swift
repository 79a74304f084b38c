@testable import LabHarness
import XCTest

private final class Target {}

private final class Strong { var target: Target?; init(_ target: Target) { self.target = target } }
private final class Unowned { unowned let target: Target; init(_ target: Target) { self.target = target } }
private final class UnownedUnsafe {
    unowned(unsafe) var target: Target
    init(_ target: Target) { self.target = target }
}
private final class Weak { weak var target: Target?; init(_ target: Target) { self.target = target } }

private class Base { var inherited: Target?; init(_ target: Target) { inherited = target } }
private final class Derived: Base {}

private struct StrongLink { var target: Target }
private struct UnownedLink { unowned var target: Target }
private final class Links {
    var strong: StrongLink?
    var direct: StrongLink
    var unowned: UnownedLink
    init(_ target: Target) {
        direct = StrongLink(target: target)
        unowned = UnownedLink(target: target)
    }
}

private final class Action { var run: (() -> Void)? }

/// Uses its arguments where the optimizer cannot see, so a release build keeps every capture.
@inline(never) @_optimize(none)
private func use(_ values: Any...) {}

/// What `HolderSearch` names as holding an object: strong references only, each once, read
/// from the field records and closure capture descriptors.
final class HolderSearchTests: XCTestCase {
    private func holders(of target: Target, in owner: AnyObject) -> [String] {
        HolderSearch.holders(of: target, targetLabel: "target", among: [("owner", owner)])
    }

    func testOnlyAStrongStoredPropertyHolds() {
        let target = Target()
        XCTAssertEqual(holders(of: target, in: Strong(target)), ["owner's stored property `target`"])
        XCTAssertEqual(holders(of: target, in: Unowned(target)), [])
        XCTAssertEqual(holders(of: target, in: UnownedUnsafe(target)), [])
        XCTAssertEqual(holders(of: target, in: Weak(target)), [])
    }

    func testASuperclasssPropertyIsNamedOnce() {
        let target = Target()
        XCTAssertEqual(holders(of: target, in: Derived(target)), ["owner's stored property `inherited`"])
    }

    func testAStructsFieldIsNamedByItsPathAndAnUnownedOneIsNot() {
        let target = Target()
        XCTAssertEqual(holders(of: target, in: Links(target)), ["owner's stored property `direct.target`"])
    }

    func testAnUnownedCaptureIsNotAHolderWhereverItLies() {
        let target = Target(), other = Target()
        let action = Action()
        let number = 42
        action.run = { [unowned target] in use(target, other, number) }
        XCTAssertEqual(holders(of: target, in: action), [])
        action.run = { [number, other, unowned(unsafe) target] in use(number, target, other) }
        XCTAssertEqual(holders(of: target, in: action), [])
        action.run = { [weak target] in use(target as Any) }
        XCTAssertEqual(holders(of: target, in: action), [])
    }

    func testAStrongCaptureAfterOthersIsFoundByItsOffset() {
        let target = Target(), other = Target()
        let action = Action()
        let text = "a string of more than fifteen bytes"
        action.run = { [unowned other] in use(text, other, target) }
        XCTAssertEqual(holders(of: target, in: action),
                       ["a closure stored in owner's property `run`, which captured target"])
    }

    func testACapturedVarIsHeldThroughItsBox() {
        let target = Target(), other = Target()
        let action = Action()
        var held: Target = target
        action.run = { use(held); held = other }
        XCTAssertEqual(holders(of: target, in: action),
                       ["a closure stored in owner's property `run`, which captured target"])
        unowned var link: Target = target
        action.run = { use(link); link = other }
        XCTAssertEqual(holders(of: target, in: action), [])
        withExtendedLifetime((held, link)) {}
    }

    func testAClosureWhoseOneCaptureIsAnObjectIsReadThroughThatObject() {
        let target = Target()
        let action = Action()
        let strong = Strong(target), unowned = Unowned(target)
        action.run = { use(strong) }
        XCTAssertEqual(holders(of: target, in: action), [
            "a closure stored in owner's property `run`, which captured a Strong whose stored property `target` holds target"
        ])
        action.run = { use(unowned) }
        XCTAssertEqual(holders(of: target, in: action), [])
    }

    func testAnUncertainCaptureNeverClaimsACycle() {
        let finding = HolderSearch.Finding(path: ["onFinish"], closure: .uncertain)
        let text = HolderSearch.describe(finding, owner: "its own", isSelf: true, "downloader")
        XCTAssertEqual(text, "a closure stored in its own property `onFinish`, which references it (strong or unowned: "
                       + "its capture metadata does not say which)")
        XCTAssertFalse(text.contains("retain cycle"))
    }
}
