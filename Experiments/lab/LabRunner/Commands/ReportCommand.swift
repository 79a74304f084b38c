import Foundation
import LabHarness

/// `lab report --from FILE --out DIR`: `index.html`, `results.md` and one standalone SVG per
/// chart under `DIR/charts/`, each written atomically.
public enum ReportCommand {
    /// A failure with the exit status it deserves (sysexits: 64 usage, 66 no input,
    /// 73 cannot create).
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var status: Int32
        public var description: String { message }
    }

    /// What was written.
    public struct Written: Sendable {
        public var index: URL
        public var markdown: URL
        public var charts: [URL]
    }

    public static func run(from path: String, to directory: String, catalog: LabCatalog) throws -> Written {
        let source = URL(fileURLWithPath: path)
        guard FileManager.default.isReadableFile(atPath: source.path) else {
            throw Failure(message: "cannot read '\(path)': no such file or not readable", status: 66)
        }
        let data: Data
        do { data = try Data(contentsOf: source) } catch {
            throw Failure(message: "cannot read '\(path)': \(error.localizedDescription)", status: 66)
        }
        let document: LabDocument
        do { document = try LabDocument.read(data) } catch {
            throw Failure(message: "'\(path)' \(error) (write one with `lab all --json FILE`)", status: 64)
        }

        let out = URL(fileURLWithPath: directory)
        let chartsDirectory = out.appendingPathComponent("charts")
        do {
            try FileManager.default.createDirectory(at: chartsDirectory, withIntermediateDirectories: true)
        } catch {
            throw Failure(message: "cannot create '\(chartsDirectory.path)': \(reason(error))", status: 73)
        }
        guard FileManager.default.isWritableFile(atPath: out.path), FileManager.default.isWritableFile(atPath: chartsDirectory.path) else {
            throw Failure(message: "cannot write into '\(out.path)': permission denied", status: 73)
        }

        var written: [URL] = []
        do {
            for report in document.experiments {
                for chart in ChartSelection.charts(for: report) {
                    let url = chartsDirectory.appendingPathComponent("\(chart.id).svg")
                    try AtomicFile.write(chart.svg.document, to: url)
                    written.append(url)
                }
            }
            let label = source.lastPathComponent
            let index = out.appendingPathComponent("index.html")
            try AtomicFile.write(HTMLPage.render(document, catalog: catalog, source: label), to: index)
            let markdown = out.appendingPathComponent("results.md")
            try AtomicFile.write(MarkdownPage.render(document, catalog: catalog, source: label), to: markdown)
            return Written(index: index, markdown: markdown, charts: written)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot write into '\(out.path)': \(reason(error))", status: 73)
        }
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
