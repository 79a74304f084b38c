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

    /// `addr2line -a -f -i` output as seen on a release build: the first address is in code
    /// where two functions were inlined, so it names three, innermost first; the second names
    /// none.
    func testInlinedFunctionsAreFramesInnermostFirst() {
        let output = """
            0x000000000003f4c1
            $s8Dispatch0A5GroupCACycfC
            //<compiler-generated>:?
            $s14HarnessUserKit13PatientClientC7requestSbyF
            /src/Kit/Fetchers.swift:39 (discriminator 2)
            waitForReplyInC
            /src/Kit/Fetchers.c:43
            0x0000000000000010
            ??
            ??:0

            """
        let named = StackSymbolizer.parse(output, addresses: [0x3f4c1, 0x10])
        let first = named[0x3f4c1] ?? []
        XCTAssertEqual(
            first.map(\.symbol),
            [
                "Dispatch.DispatchGroup.__allocating_init() -> Dispatch.DispatchGroup",
                "HarnessUserKit.PatientClient.request() -> Swift.Bool", "waitForReplyInC",
            ])
        XCTAssertEqual(first.map(\.line), [nil, "Fetchers.swift:39", "Fetchers.c:43"])
        XCTAssertEqual(named[0x10]?.count, 1)
        XCTAssertNil(named[0x10]?.first?.symbol ?? nil)
        // An answer that does not start with the address asked for names nothing after it.
        XCTAssertTrue(StackSymbolizer.parse("0x20\nf\nf.c:1\n", addresses: [0x10]).isEmpty)
    }

    /// What the optimizer makes of a function reads as the function.
    func testCompilerMadeCodeReadsAsItsFunction() {
        XCTAssertEqual(
            StackGroup.short(
                "merged partial apply forwarder for closure #1 @Sendable (A) -> () in static LabHarness.HarnessAssertions.calledExactlyOnce<A>(within: Swift.Double) -> ()"
            ), "merged closure in HarnessAssertions.calledExactlyOnce")
        XCTAssertEqual(
            StackGroup.short("partial apply for closure #1 in closure #1 in RacingLoader.load"),
            "closure in RacingLoader.load")
        XCTAssertEqual(
            StackGroup.short("generic specialization <Swift.Array<Swift.Int>> of Kit.Box.wait() -> ()"), "Box.wait")
        XCTAssertTrue(
            HangStacks.isHarnessFrame(
                "merged partial apply forwarder for closure #1 @Sendable (A) -> () in static LabHarness.HarnessAssertions.calledExactlyOnce<A>(within: Swift.Double) -> ()"
            ))
        XCTAssertFalse(HangStacks.isHarnessFrame("merged closure #1 () -> () in Kit.Client.start() -> ()"))
    }
    /// Code a macro wrote reads as what the macro was expanded for. The symbols are the closure
    /// Swift Testing's `@Test` wrote for `SerialSuite.deadlocksToo` in `Tests/WatchFixture` (its
    /// `(2) await resume` piece too), and the body of an exit test in `#expect(processExitsWith:)`
    /// (Swift 6.3.1's compiler), demangled by the runtime as a stack's frames are.
    func testCodeAMacroWroteReadsAsWhatTheMacroWasExpandedFor() throws {
        let expansion =
            "$s17WatchFixtureTests11SerialSuiteV04$s17ab7Tests11dE46V12deadlocksToo4TestfMp_16b66c14e6919fb83bfMu_"
            + "33_95527F6024A6599FEFD8203985E8D9A9LLyyYaYbKFZ"
        let closure = expansion + "0fabgdehijK14_7__localfMu0_L_yyScA_pSgYiYaYbKF"
        for symbol in [expansion, closure, closure + "TQ1_"] {
            let demangled = SwiftDemangler.demangle(symbol)
            if demangled == symbol { throw XCTSkip("the runtime's demangler is not available") }
            XCTAssertEqual(StackGroup.short(demangled), "@Test expansion of SerialSuite.deadlocksToo", demangled)
        }
        // Swift's crash report prints that fragment bare, in the closure's name too.
        let bare = "static TrapSuite.$s17WatchFixtureTests9TrapSuiteV9trapsSoon4TestfMp_16a4ffaf206b110118fMu_@Sendable ()"
        for name in [bare, "$s17WatchFixtureTests9TrapSuiteV9trapsSoon4TestfMp_7__localfMu0_ #1 @Sendable (_:) in " + bare] {
            XCTAssertEqual(StackGroup.short(name), "@Test expansion of TrapSuite.trapsSoon", name)
        }
        XCTAssertNil(StackGroup.place(bare + " (@__swiftmacro_17WatchFixtureTests9TrapSuiteV9trapsSoon4TestfMp_.swift:5)"))
        let exitTest =
            "$s22LabHarnessTestingTests0037SwiftTestingAssertionTestsswift_emGFlfMX125_14_6expectfMf_7__localfMu_"
            + " #1 @Sendable () async throws -> () in closure #2 () -> () in"
            + " LabHarnessTestingTests.SwiftTestingAssertionTests.exitTestsAreAvailableForCodeThatTraps() async -> ()"
        XCTAssertEqual(
            StackGroup.short(exitTest), "closure in SwiftTestingAssertionTests.exitTestsAreAvailableForCodeThatTraps")
        XCTAssertEqual(
            StackGroup.short("(3) suspend resume partial function for Kit.Loader.load(from: Swift.String) async -> ()"),
            "Loader.load")
    }
}
