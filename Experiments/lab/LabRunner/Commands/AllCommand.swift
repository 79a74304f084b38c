import Foundation
import LabHarness

/// `lab all`: every experiment in its own child process, one after the other (they measure
/// timing, so they never share the machine with each other), then one table of findings.
public enum AllCommand {
    public struct Result: Sendable {
        public var document: LabDocument
        public var interrupted: Bool

        public init(document: LabDocument, interrupted: Bool) {
            self.document = document
            self.interrupted = interrupted
        }

        /// 0 when every applicable finding reproduced, no variant ended with a forbidden outcome
        /// and every experiment reported; 1 when not (or when no finding was judged at all:
        /// "0 of 0" proves nothing); 130 when interrupted.
        public var exitStatus: Int32 {
            if interrupted { return 130 }
            let ok =
                document.failures.isEmpty && document.experiments.allSatisfy(\.passed)
                && Verdicts(document).applicable > 0
            return ok ? 0 : 1
        }
    }

    /// Runs the catalog's experiments (or `only` those) and collects their reports.
    public static func run(
        catalog: LabCatalog, launcher: Launcher, quick: Bool, only: [String] = [],
        status: RunStatus? = nil
    ) -> Result {
        let start = MonotonicClock.now()
        let entries = only.isEmpty ? catalog.entries : catalog.entries.filter { only.contains($0.command) }
        status?.planned(entries.count)
        var reports: [ExperimentReport] = []
        var failures: [ExperimentFailure] = []
        var interrupted = false
        for (index, entry) in entries.enumerated() {
            if ChildProcess.isInterrupted { interrupted = true; break }
            status?.started(index, variant: entry.command, total: nil)
            defer { status?.finished(index) }
            let arguments = launcher.selector(entry) + ["--json"] + (quick ? ["--quick"] : [])
            let spec = ChildSpec(
                executable: launcher.executable, arguments: arguments,
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: quick ? 120 : 600)
            let run: ChildRun
            do { run = try ChildProcess.run(spec) } catch {
                failures.append(
                    ExperimentFailure(experiment: entry.definition.name, outcome: "failed", evidence: "\(error)"))
                continue
            }
            if run.outcome == .interrupted {
                interrupted = true
                failures.append(
                    ExperimentFailure(experiment: entry.definition.name, outcome: "interrupted", evidence: run.evidence)
                )
                break
            }
            // Exit 0 or 1 both come with a report; anything else is a failure of the run itself.
            if let code = run.exitCode, code == 0 || code == 1,
                let report = try? ExperimentReport.decode(Data(run.stdout.utf8))
            {
                reports.append(report)
            } else if let machine = run.machine {
                // The machine, not the experiment: it could not finish in its budget for want of
                // a CPU or a thread.
                failures.append(
                    ExperimentFailure(
                        experiment: entry.definition.name, outcome: machine.outcome.rawValue,
                        evidence: machine.evidence + "; the harness saw: " + run.evidence))
            } else {
                let evidence =
                    run.outcome == .completed || (run.outcome == .failed && !run.exitStatusLost)
                    ? (run.stderr.split(separator: "\n").last.map(String.init) ?? run.evidence) : run.evidence
                failures.append(
                    ExperimentFailure(
                        experiment: entry.definition.name, outcome: run.outcome.rawValue, evidence: evidence))
            }
        }
        if ChildProcess.isInterrupted { interrupted = true }
        let document = LabDocument(
            complete: !interrupted && failures.isEmpty, quick: quick,
            elapsedSeconds: MonotonicClock.now() - start, experiments: reports, failures: failures)
        return Result(document: document, interrupted: interrupted)
    }

    /// The narrowest the `measured` column may get beside the verdicts; on a terminal narrower
    /// than that leaves, each figure goes on its own lines under its finding.
    static let measuredRoom = 30

    /// The table `lab all` prints: experiment, finding, verdict, the measured figure, fitted to
    /// `width` columns when given (the measured figure wraps within its column, `TextTable`).
    public static func table(_ document: LabDocument, style: Style, width: Int? = nil) -> String {
        var rows: [[String]] = [["experiment", "finding", "verdict", "measured"]]
        for report in document.experiments {
            for f in report.findings {
                let verdict =
                    !f.applicable
                    ? "n/a" : (f.reproduced ? "reproduced" : (f.notJudged ? "NOT JUDGED" : "NOT REPRODUCED"))
                rows.append([report.experiment, f.id, verdict, f.summary])
            }
        }
        for failure in document.failures {
            rows.append([failure.experiment, "(no report)", failure.outcome.uppercased(), failure.evidence])
        }
        let colour: (Int, Int, String) -> String = { r, c, text in
            guard r > 0 else { return style.dim(text) }
            guard c == 2 else { return text }
            let verdict = rows[r][2]
            if verdict == "NOT JUDGED" { return style.yellow(text) }
            return verdict == "reproduced" ? style.green(text) : (verdict == "n/a" ? style.dim(text) : style.red(text))
        }
        let table = TextTable(rows: rows)
        let widths = table.columnWidths(fitting: width ?? Int.max)
        var lines: [String]
        if let width, widths.count == 4, widths[3] < AllCommand.measuredRoom {
            // Too narrow for the figures beside the verdicts: each goes on lines of its own,
            // indented under its finding.
            let left = TextTable(rows: rows.map { Array($0.prefix(3)) }).render(width: Int.max, style: colour)
            lines = [left[0]]
            for r in 1..<rows.count {
                lines.append(left[r])
                lines += TextWrap.wrap("      " + rows[r][3], width: width, indent: "      ")
            }
        } else {
            lines = table.render(width: width ?? Int.max, style: colour)
        }
        let verdicts = Verdicts(document)
        let unjudged = document.experiments.flatMap(\.unjudgedFindings).count
        let footer =
            "\(verdicts.reproduced) of \(verdicts.applicable) findings reproduced in \(document.experiments.count) experiments"
            + (unjudged == 0 ? "" : "; \(unjudged) not judged")
            + (document.failures.isEmpty ? "" : "; \(document.failures.count) left no report")
            + " · \(Format.seconds(document.elapsedSeconds))" + (document.complete ? "" : " · INCOMPLETE")
        // A forbidden outcome fails the run even when no finding reads its variant.
        let forbidden = document.experiments.flatMap { experiment in
            experiment.forbiddenVariants.map {
                style.red("forbidden outcome: \(experiment.experiment) \($0.name) ended \($0.outcome)")
            }
        }
        let good =
            verdicts.reproduced == verdicts.applicable && verdicts.applicable > 0 && document.failures.isEmpty
            && document.complete && forbidden.isEmpty
        let nothing =
            verdicts.applicable == 0 && document.failures.isEmpty
            ? "\n" + style.red("no finding was judged: nothing ran that could reproduce one") : ""
        let machine = document.experiments.flatMap { experiment in
            HumanReport.machineLines(experiment, style: style).map { "\(experiment.experiment): " + $0 }
        }
        let forbiddenText = (machine + forbidden).isEmpty ? "" : "\n" + (machine + forbidden).joined(separator: "\n")
        return lines.joined(separator: "\n") + "\n\n" + (good ? style.green(footer) : style.red(footer)) + forbiddenText
            + nothing + "\n"
    }
    /// `lab all --charts`: after the table, each experiment's own sections (its text charts,
    /// timelines and step lists) drawn from its report exactly as the experiment's terminal
    /// report draws them, and wrapped to `width` the same way. An experiment that defines no
    /// sections, or whose report gave them nothing to draw, prints nothing.
    public static func charts(_ document: LabDocument, catalog: LabCatalog, style: Style, width: Int) -> String {
        var lines: [String] = []
        for report in document.experiments {
            guard let definition = catalog.entry(named: report.experiment)?.definition else { continue }
            let sections = HumanReport.sections(report, definition: definition, width: width)
            guard !sections.isEmpty else { continue }
            lines.append("")
            lines += TextWrap.wrap(
                style.bold("\(definition.executable): \(definition.question)"), width: width, indent: "  ")
            lines += sections
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }
}
