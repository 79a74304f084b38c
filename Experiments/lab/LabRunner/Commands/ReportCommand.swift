import Foundation
import LabHarness

/// `lab report --from FILE --out DIR`: `index.html`, `results.md` and one standalone SVG per
/// chart under `DIR/charts/`, the whole site at once (`SiteFolder`): built in a folder beside
/// `DIR` and swapped in when complete, so a failure leaves the old site whole and a re-run
/// leaves no chart of the run before.
///
/// The input is untrusted: it must be a regular file of bounded size and nesting, every number
/// in it is range-checked before anything is drawn, names become file names only as safe slugs,
/// and every output path is checked (inside `DIR`, not the input, not a symlink or other
/// non-regular file) before the first byte is written.
public enum ReportCommand {
    /// A failure with the exit status it deserves (sysexits: 64 usage, 66 no input,
    /// 73 cannot create, 74 a write that failed part way).
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

    /// The largest results file read (a full `lab all` run writes well under 1 MB).
    public static let inputLimit = 256 << 20

    public static func run(from path: String, to directory: String, catalog: LabCatalog) throws -> Written {
        let shown = UsageError.echo(path)
        let source = URL(fileURLWithPath: path)
        let input = try inputIdentity(path)
        let data: Data
        do { data = try Data(contentsOf: source) } catch {
            throw Failure(message: "cannot read '\(shown)': \(reason(error))", status: 66)
        }
        guard !JSONDepth.exceeds(data) else {
            throw Failure(
                message: "'\(shown)' nests deeper than \(JSONDepth.limit) levels; a results file nests a few",
                status: 64)
        }
        let document: LabDocument
        do {
            document = try LabDocument.read(data)
            try DocumentCheck.validate(document)
        } catch let error as LabDocument.DocumentError {
            throw Failure(message: "'\(shown)' \(error) (write one with `lab all --json FILE`)", status: 64)
        } catch let error as DocumentCheck.OutOfRange {
            throw Failure(message: "'\(shown)': \(error)", status: 64)
        } catch let error as DecodingError {
            throw Failure(message: "'\(shown)' does not match schema 1: \(describe(error))", status: 64)
        } catch {
            throw Failure(
                message: "'\(shown)' cannot be read as a results file: \(UsageError.echo("\(error)"))", status: 64)
        }

        // Every output, decided and checked before anything is written.
        let out = URL(fileURLWithPath: directory).standardizedFileURL
        let chartsDirectory = out.appendingPathComponent("charts")
        let charts = uniqueCharts(document)
        let index = out.appendingPathComponent("index.html")
        let markdown = out.appendingPathComponent("results.md")
        let chartURLs = charts.flatMap { $0 }.map { chartsDirectory.appendingPathComponent("\($0.id).svg") }
        for url in [index, markdown] + chartURLs {
            let parent = url.deletingLastPathComponent().standardizedFileURL.path
            guard parent == out.path || parent == chartsDirectory.standardizedFileURL.path else {
                throw Failure(
                    message: "'\(UsageError.echo(url.path))' would be outside '\(UsageError.echo(out.path))'",
                    status: 73)
            }
            if let input, identity(url.path) == input {
                throw Failure(
                    message: "'\(shown)' is also an output ('\(UsageError.echo(url.lastPathComponent))' in --out); "
                        + "read it from elsewhere or choose another --out", status: 64)
            }
        }
        try SiteFolder.checkReplaceable(out)
        let label = source.lastPathComponent
        let flatCharts = charts.flatMap { $0 }
        try SiteFolder.build(replacing: out) { staging in
            let stagedCharts = staging.appendingPathComponent("charts")
            try FileManager.default.createDirectory(at: stagedCharts, withIntermediateDirectories: false)
            for chart in flatCharts {
                try AtomicFile.write(chart.svg.document, to: stagedCharts.appendingPathComponent("\(chart.id).svg"))
            }
            try AtomicFile.write(
                HTMLPage.render(document, catalog: catalog, source: label, charts: charts),
                to: staging.appendingPathComponent("index.html"))
            try AtomicFile.write(
                MarkdownPage.render(document, catalog: catalog, source: label, charts: charts),
                to: staging.appendingPathComponent("results.md"))
        }
        return Written(index: index, markdown: markdown, charts: chartURLs)
    }

    /// The charts of each experiment, with file names made unique: two experiments whose names
    /// reduce to one slug get `-2`, `-3` rather than overwriting each other's charts.
    static func uniqueCharts(_ document: LabDocument) -> [[Chart]] {
        var used = Set<String>()
        return document.experiments.map { report in
            ChartSelection.charts(for: report).map { chart in
                var chart = chart
                var id = chart.id, n = 1
                while !used.insert(id).inserted { n += 1; id = "\(chart.id)-\(n)" }
                chart.id = id
                return chart
            }
        }
    }

    /// Checks that `path` is a regular file of bounded size (a FIFO would block the reader, a
    /// device could be endless) and returns its identity, to keep it from being overwritten.
    private static func inputIdentity(_ path: String) throws -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Failure(
                message: "cannot read '\(UsageError.echo(path))': \(String(cString: strerror(errno)))", status: 66)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(message: "cannot read '\(UsageError.echo(path))': not a regular file", status: 66)
        }
        guard access(path, R_OK) == 0 else {
            throw Failure(message: "cannot read '\(UsageError.echo(path))': permission denied", status: 66)
        }
        guard Int(info.st_size) <= inputLimit else {
            throw Failure(
                message:
                    "'\(UsageError.echo(path))' is \(info.st_size) bytes; a results file is at most \(inputLimit >> 20) MB",
                status: 64)
        }
        return identity(path)
    }

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func describe(_ error: DecodingError) -> String {
        let (context, what): (DecodingError.Context?, String) = {
            switch error {
            case .typeMismatch(_, let c): return (c, "a value of the wrong type")
            case .valueNotFound(_, let c): return (c, "a missing value")
            case .keyNotFound(let key, let c): return (c, "no key '\(key.stringValue)'")
            case .dataCorrupted(let c): return (c, "a value it cannot read")
            @unknown default: return (nil, "a value it cannot read")
            }
        }()
        let place =
            context?.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") ?? ""
        return UsageError.echo(what + (place.isEmpty ? "" : " at \(place)"))
    }

    private static func reason(_ error: Error) -> String {
        UsageError.echo((error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription)
    }
}
