@testable import LabHarness
import XCTest

/// How frame names are shortened for the report: a C++ function without its parameter list,
/// Swift names demangled by the runtime, anything else as it came.
final class StackSymbolizerTests: XCTestCase {
    func testACppSignatureLosesItsParameters() {
        XCTAssertEqual(
            StackSymbolizer.withoutParameters(
                "swift_getTypeByMangledNameInContextImpl(char const*, unsigned long, swift::TargetContextDescriptor<swift::InProcess> const*, void const* const*)"
            ),
            "swift_getTypeByMangledNameInContextImpl")
        XCTAssertEqual(
            StackSymbolizer.withoutParameters("swift::MetadataCache::get(char const*, unsigned long) const"),
            "swift::MetadataCache::get")
        XCTAssertEqual(
            StackSymbolizer.withoutParameters(
                "(anonymous namespace)::DecodedMetadataBuilder::createBoundGenericType(void (*)(int), int)"),
            "(anonymous namespace)::DecodedMetadataBuilder::createBoundGenericType")
    }

    func testNamesWithoutAParameterListAreKept() {
        for name in [
            "__futex_abstimed_wait_common64", "_dispatch_semaphore_wait_slow", "(anonymous)", "f(", "operator)",
        ] {
            XCTAssertEqual(StackSymbolizer.withoutParameters(name), name)
        }
    }

    func testSwiftNamesAreTold() {
        XCTAssertTrue(SwiftDemangler.isMangled("$s10LabHarness11NamedThreadO5startyyF"))
        XCTAssertFalse(SwiftDemangler.isMangled("_ZL39swift_getTypeByMangledNameInContextImplPKcm"))
        XCTAssertFalse(SwiftDemangler.isMangled("clock_nanosleep"))
    }
}
