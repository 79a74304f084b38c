import Foundation
import XCTest

/// Every synchronous assertion of the two framework modules that has an async twin blocks its
/// caller for the whole wait, so it is `noasync`, as Apple marks its own blocking waits: async
/// code then gets the async form or a diagnostic, never a wait that holds its actor or a thread
/// of the cooperative pool (where it also starves the async assertions of tests running beside
/// it). Read from the sources, like `PublicSurfaceTests`.
final class BlockingFormsTests: XCTestCase {
    func testEverySynchronousFormWithAnAsyncTwinIsNoasync() throws {
        var unmarked: [String] = [], checked = 0
        for module in ["LabHarnessXCTest", "LabHarnessTesting"] {
            var forms: [(name: String, isAsync: Bool, noasync: Bool, place: String)] = []
            for path in StrictnessCheck.swiftFiles(under: "Sources/\(module)") {
                let file = URL(fileURLWithPath: path).lastPathComponent
                let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
                for (index, line) in lines.enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    guard trimmed.hasPrefix("public func ") else { continue }
                    let name = String(trimmed.dropFirst("public func ".count).prefix { $0.isLetter || $0.isNumber })
                    // The signature runs to the line that opens the body.
                    let signature = lines[index...].prefix { !$0.hasSuffix("{") }.joined() + (lines[index...].first {
                        $0.hasSuffix("{")
                    } ?? "")
                    let attributes = lines[..<index].reversed().prefix {
                        $0.trimmingCharacters(in: .whitespaces).hasPrefix("@")
                    }
                    forms.append(
                        (name, signature.contains(") async"), attributes.contains { $0.contains("noasync") },
                            "\(module)/\(file):\(index + 1) \(name)"))
                }
            }
            let withAsyncTwin = Set(forms.filter(\.isAsync).map(\.name))
            for form in forms where !form.isAsync && withAsyncTwin.contains(form.name) {
                checked += 1
                if !form.noasync { unmarked.append(form.place) }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 18, "the reading found the synchronous forms")
        XCTAssertEqual(unmarked, [], "synchronous forms with an async twin that are not noasync")
    }
}
