import Foundation
import LabHarness

/// The `lab` command: lists, runs and reports the experiments, and hosts each of them
/// (`lab runloop --quick` is `exp-runloop --quick`).
public enum LabCommandLine {
    public static func main(catalog: LabCatalog, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let command = arguments.first ?? "list"
        let rest = Array(arguments.dropFirst())
        switch command {
        case "list": exit(list(catalog, rest))
        case "all": exit(all(catalog, rest))
        case "report": exit(report(catalog, rest))
        case "bench": exit(bench(catalog, rest))
        case "bench-child":
            // The trivial child whose launch `lab bench` times: it reports and exits.
            ChildProtocol.sendResult(#"{"outcome":"completed","metrics":{},"series":{},"events":[]}"#)
            exit(0)
        case "help", "--help", "-h":
            Terminal.writeOutput(help(catalog))
            exit(0)
        default:
            if let entry = catalog.entry(named: command) {
                ExperimentMain.run(entry.definition, arguments: rest, childPrefix: [entry.command], program: "lab \(entry.command)")
            }
            let names = catalog.entries.map(\.command).joined(separator: ", ")
            Terminal.writeError("lab: unknown command or experiment '\(command)' (valid: list, all, report, bench, help, \(names))\n")
            exit(64)
        }
    }

    static func parse(_ flags: [FlagSpec], _ arguments: [String], command: String) -> ParsedOptions? {
        do {
            return try CommandLineParser(program: "lab \(command)", flags: flags).parse(arguments)
        } catch let error as UsageError {
            Terminal.writeError("lab \(command): \(error.message)\n")
        } catch {
            Terminal.writeError("lab \(command): \(error)\n")
        }
        return nil
    }

    static func list(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        guard parse([], arguments, command: "list") != nil else { return 64 }
        Terminal.writeOutput(listing(catalog))
        return 0
    }

    public static func listing(_ catalog: LabCatalog) -> String {
        var lines = ["Runloop Lab: \(catalog.entries.count) experiments on one harness", ""]
        let width = catalog.entries.map(\.definition.executable.count).max() ?? 0
        for entry in catalog.entries {
            lines.append("  " + entry.definition.executable.padding(toLength: width, withPad: " ", startingAt: 0)
                         + "  " + entry.definition.question)
        }
        lines += ["", "  swift run lab all --quick      every experiment, scaled down (under 20 s)",
                  "  swift run lab all              every experiment at full size",
                  "  swift run exp-runloop          one experiment (or: swift run lab runloop)",
                  "  swift run lab help             all commands", ""]
        return lines.joined(separator: "\n")
    }

    static func help(_ catalog: LabCatalog) -> String {
        """
        lab: one runner for every Runloop Lab experiment

        usage:
          lab [list]                          the experiments, with the question each answers
          lab all [--quick] [--json FILE] [--only NAMES]
                                              run every experiment (each in its own child process) and
                                              print one table of findings; exit 0 only when every
                                              applicable finding reproduced, 130 on Ctrl-C
          lab report --from FILE --out DIR    index.html, results.md and SVG charts from a results file
                                              (from `lab all --json FILE` or an experiment's --json)
          lab bench [--json FILE]             the harness's own costs (run with `swift run -c release`)
          lab NAME [flags]                    run one experiment, as `exp-NAME [flags]` would
                                              (NAME: \(catalog.entries.map(\.command).joined(separator: ", ")))

        exit status: 0 all reproduced, 1 a finding did not (or an experiment left no report),
        64 bad usage, 66 no input file, 73 cannot create output, 130 interrupted

        """
    }

    static func all(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        let flags: [FlagSpec] = [
            .toggle("quick", help: "scaled-down runs"),
            .text("json", valueName: "FILE", help: "also write every report, as one JSON document, to FILE"),
            FlagSpec("only", .list(catalog.entries.map(\.command)), help: "run only these experiments"),
        ]
        guard let options = parse(flags, arguments, command: "all") else { return 64 }
        let jsonURL = options.text("json").map { URL(fileURLWithPath: $0) }
        if let url = jsonURL, !directoryIsWritable(url.deletingLastPathComponent()) {
            Terminal.writeError("lab all: cannot create '\(url.path)': its directory is missing or not writable\n")
            return 73
        }
        let interrupt = InterruptHandler.install()
        let status = RunStatus(title: "lab all" + (options.quick ? " --quick" : ""))
        let line = ProgressLine { status.line() }
        line.start()
        let result = AllCommand.run(catalog: catalog, launcher: .hosted, quick: options.quick,
                                    only: options.list("only"), status: status)
        line.finish()
        var exitStatus = result.exitStatus
        if let url = jsonURL {
            do {
                try AtomicFile.write(result.document.jsonData(), to: url)
            } catch {
                Terminal.writeError("lab all: cannot write '\(url.path)': \(error.localizedDescription)\n")
                exitStatus = 73
            }
        }
        let style = Style(enabled: Terminal.colourAllowed(fd: 1))
        Terminal.writeOutput(AllCommand.table(result.document, style: style, width: Terminal.isTTY(1) ? Terminal.width(fd: 1) : nil))
        if interrupt.fired || result.interrupted {
            Terminal.writeError("lab all: interrupted; " + (jsonURL.map { "'\($0.path)' holds what finished (marked incomplete)" } ?? "the table shows what finished") + "\n")
            return 130
        }
        return exitStatus
    }

    static func report(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        let flags: [FlagSpec] = [
            .text("from", valueName: "FILE", help: "a results file from `lab all --json FILE`"),
            .text("out", valueName: "DIR", help: "where to write index.html, results.md and charts/"),
        ]
        guard let options = parse(flags, arguments, command: "report") else { return 64 }
        guard let from = options.text("from"), let out = options.text("out") else {
            Terminal.writeError("lab report: needs --from FILE and --out DIR\n")
            return 64
        }
        do {
            let written = try ReportCommand.run(from: from, to: out, catalog: catalog)
            Terminal.writeOutput("wrote \(written.index.path), \(written.markdown.path) and \(written.charts.count) charts\n")
            return 0
        } catch let failure as ReportCommand.Failure {
            Terminal.writeError("lab report: \(failure.message)\n")
            return failure.status
        } catch {
            Terminal.writeError("lab report: \(error)\n")
            return 73
        }
    }

    static func bench(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        let flags: [FlagSpec] = [.text("json", valueName: "FILE", help: "also write the figures as JSON to FILE")]
        guard let options = parse(flags, arguments, command: "bench") else { return 64 }
        let jsonURL = options.text("json").map { URL(fileURLWithPath: $0) }
        if let url = jsonURL, !directoryIsWritable(url.deletingLastPathComponent()) {
            Terminal.writeError("lab bench: cannot create '\(url.path)': its directory is missing or not writable\n")
            return 73
        }
        let result = BenchCommand.run(launcher: .hosted, catalog: catalog) { Terminal.writeError("  \($0)\n") }
        Terminal.writeOutput(BenchCommand.render(result, style: Style(enabled: Terminal.colourAllowed(fd: 1))))
        if let url = jsonURL {
            do {
                try AtomicFile.write(ExperimentReport.encoder(pretty: true).encode(result), to: url)
            } catch {
                Terminal.writeError("lab bench: cannot write '\(url.path)': \(error.localizedDescription)\n")
                return 73
            }
        }
        return 0
    }

    static func directoryIsWritable(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.isWritableFile(atPath: url.path)
    }
}
