import Foundation
import LabHarness

/// The `lab` command: lists, runs and reports the experiments, and hosts each of them
/// (`lab runloop --quick` is `exp-runloop --quick`).
public enum LabCommandLine {
    public static func main(
        catalog: LabCatalog, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> Never {
        // Started by another lab process (`lab all`, `lab bench`): die with it, whatever kills it.
        ChildHandshake.bindIfStartedByLab()
        Terminal.prepareOutput()
        let command = arguments.first ?? "list"
        let rest = Array(arguments.dropFirst())
        switch command {
        case "list": Terminal.exit(list(catalog, rest), program: "lab list")
        case "all": Terminal.exit(all(catalog, rest), program: "lab all")
        case "report": Terminal.exit(report(catalog, rest), program: "lab report")
        case "bench": Terminal.exit(bench(catalog, rest), program: "lab bench")
        case "watch": Terminal.exit(WatchCommand.main(rest), program: "lab watch")
        case "watch-keeper": exit(WatchKeeper.main(rest))
        case "bench-child":
            // The trivial child whose launch `lab bench` times: it reports and exits.
            guard ChildHandshake.startedByLab else {
                Terminal.writeError(ChildHandshake.refusal(program: "lab", what: "bench-child"))
                exit(64)
            }
            guard rest.isEmpty else {
                Terminal.writeError("lab bench-child: takes no arguments, not '\(UsageError.echo(rest[0]))'\n")
                exit(64)
            }
            ChildProtocol.sendResult(#"{"outcome":"completed","metrics":{},"series":{},"events":[]}"#)
            exit(0)
        case "help", "--help", "-h":
            guard rest.isEmpty || rest == ["--help"] else {
                Terminal.writeError(
                    "lab help: takes no arguments, not '\(UsageError.echo(rest[0]))' (try: lab COMMAND --help)\n")
                exit(64)
            }
            Terminal.writeOutput(help(catalog))
            Terminal.exit(0, program: "lab")
        default:
            if let entry = catalog.entry(named: command) {
                ExperimentMain.run(
                    entry.definition, arguments: rest, childPrefix: [entry.command], program: "lab \(entry.command)")
            }
            let names = catalog.entries.map(\.command).joined(separator: ", ")
            Terminal.writeError(
                "lab: unknown command or experiment '\(UsageError.echo(command))' (valid: list, all, report, bench, watch, help, \(names))\n"
            )
            exit(64)
        }
    }

    /// The command's options, or `nil` after printing why not (exit 64). `--help` (or `-h`)
    /// anywhere prints the command's usage instead and exits 0.
    static func parse(_ flags: [FlagSpec], _ arguments: [String], command: String) -> ParsedOptions? {
        if arguments.contains("--help") || arguments.contains("-h") {
            Terminal.writeOutput(usage(command, flags))
            Terminal.exit(0, program: "lab \(command)")
        }
        do {
            return try CommandLineParser(program: "lab \(command)", flags: flags).parse(arguments)
        } catch let error as UsageError {
            Terminal.writeError("lab \(command): \(error.message)\n")
        } catch {
            Terminal.writeError("lab \(command): \(error)\n")
        }
        return nil
    }

    /// `lab COMMAND --help`: the command's line from `lab help` and its flags.
    static func usage(_ command: String, _ flags: [FlagSpec]) -> String {
        let synopsis: [String: String] = [
            "list": "the experiments, with the question each answers",
            "all": "run every experiment (each in its own child process) and print one table of findings\n"
                + "  (with --charts, then each experiment's text charts, as its own report draws them);\n"
                + "  exit 0 only when every applicable finding reproduced, 1 when not, 130 on Ctrl-C",
            "report": "index.html, results.md and SVG charts from a results file",
            "bench": "the harness's own costs (run with `swift run -c release`)",
        ]
        var lines = ["usage: lab \(command)" + (flags.isEmpty ? "" : " [flags]"), "  " + (synopsis[command] ?? ""), ""]
        let names = flags.map { "--\($0.name)" + ($0.valueName.isEmpty ? "" : " \($0.valueName)") }
        let width = names.map(\.count).max() ?? 0
        for (name, flag) in zip(names, flags) {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + flag.help)
        }
        lines.append(
            "  " + "--help".padding(toLength: width, withPad: " ", startingAt: 0) + "  print this help and exit")
        lines += ["", "exit status: " + (exitStatuses[command] ?? ""), ""]
        return lines.joined(separator: "\n")
    }

    /// What each command can exit with, as its `--help` says it; each list is the statuses its
    /// code returns, no more and no fewer (74 in every one: stdout that cannot take the output).
    static let exitStatuses: [String: String] = [
        "list": "0 success, 64 bad usage, 74 output could not be written",
        "all": "0 all reproduced, 1 a finding did not (or an experiment left no report), 64 bad usage,\n"
            + "73 cannot create output, 74 output could not be written, 130 interrupted",
        "report": "0 success, 64 bad usage, 66 no input file, 73 cannot create output, 74 output could not be written",
        "bench": "0 success, 64 bad usage, 73 cannot create output, 74 output could not be written",
    ]

    static func list(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        guard parse([], arguments, command: "list") != nil else { return 64 }
        Terminal.writeOutput(listing(catalog))
        return 0
    }

    public static func listing(_ catalog: LabCatalog) -> String {
        var lines = ["Runloop Lab: \(catalog.entries.count) experiments on one harness", ""]
        let width = catalog.entries.map(\.definition.executable.count).max() ?? 0
        for entry in catalog.entries {
            lines.append(
                "  " + entry.definition.executable.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "  " + entry.definition.question)
        }
        lines += [
            "", "  swift run lab all --quick      every experiment, scaled down (under 20 s)",
            "  swift run lab all              every experiment at full size",
            "  swift run exp-runloop          one experiment (or: swift run lab runloop)",
            "  swift run lab help             all commands", "",
        ]
        return lines.joined(separator: "\n")
    }

    static func help(_ catalog: LabCatalog) -> String {
        """
        lab: one runner for every Runloop Lab experiment

        usage:
          lab [list]                          the experiments, with the question each answers
          lab all [--quick] [--charts] [--json FILE] [--only NAMES]
                                              run every experiment (each in its own child process) and
                                              print one table of findings (--charts: then each
                                              experiment's text charts); exit 0 only when every
                                              applicable finding reproduced, 130 on Ctrl-C
          lab report --from FILE --out DIR    index.html, results.md and SVG charts from a results file
                                              (from `lab all --json FILE` or an experiment's --json)
          lab bench [--json FILE]             the harness's own costs (run with `swift run -c release`)
          lab watch [--test-timeout 60s] [--quiet-timeout 5m] -- COMMAND [ARGS...]
                                              run COMMAND (swift test, or any other) and, when a test or
                                              the command hangs, print every thread's stack and end its
                                              process tree; after a hung or crashed test, the tests that
                                              had not run yet run
          lab NAME [flags]                    run one experiment, as `exp-NAME [flags]` would
                                              (NAME: \(catalog.entries.map(\.command).joined(separator: ", ")))

        exit status: 0 all reproduced, 1 a finding did not (or an experiment left no report),
        64 bad usage, 66 no input file, 73 cannot create output, 74 output could not be written,
        130 interrupted (lab watch: see lab watch --help)

        """
    }

    static func all(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        let flags: [FlagSpec] = [
            .toggle("quick", help: "scaled-down runs"),
            .text("json", valueName: "FILE", help: "also write every report, as one JSON document, to FILE"),
            FlagSpec("only", .list(catalog.entries.map(\.command)), help: "run only these experiments"),
            .toggle("charts", help: "then each experiment's text charts (its report's own sections)"),
        ]
        guard let options = parse(flags, arguments, command: "all") else { return 64 }
        let jsonURL = options.text("json").map { URL(fileURLWithPath: $0) }
        if let url = jsonURL, let refusal = refusal(url, command: "all") { return refusal }
        let interrupt = InterruptHandler.install()
        SuspendHandler.install()
        let status = RunStatus(title: "lab all" + (options.quick ? " --quick" : ""))
        let line = ProgressLine { status.line() }
        line.start()
        let result = AllCommand.run(
            catalog: catalog, launcher: .hosted, quick: options.quick,
            only: options.list("only"), status: status)
        line.finish()
        var exitStatus = result.exitStatus
        if let url = jsonURL, let failed = save({ try result.document.jsonData() }, to: url, command: "all") {
            exitStatus = failed
        }
        let style = Style(enabled: Terminal.colourAllowed(fd: 1))
        let width = Terminal.width(fd: 1)
        Terminal.writeOutput(AllCommand.table(result.document, style: style, width: width))
        if options.bool("charts") {
            Terminal.writeOutput(AllCommand.charts(result.document, catalog: catalog, style: style, width: width))
        }
        if interrupt.fired || result.interrupted {
            Terminal.writeError(
                "lab all: interrupted; "
                    + (jsonURL.map { "'\($0.path)' holds what finished (marked incomplete)" }
                        ?? "the table shows what finished") + "\n")
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
            Terminal.writeOutput(
                "wrote \(written.index.path), \(written.markdown.path) and \(written.charts.count) charts\n")
            return 0
        } catch let failure as ReportCommand.Failure {
            Terminal.writeError("lab report: \(failure.message)\n")
            return failure.status
        } catch {
            Terminal.writeError("lab report: \(UsageError.echo("\(error)"))\n")
            return 73
        }
    }

    static func bench(_ catalog: LabCatalog, _ arguments: [String]) -> Int32 {
        let flags: [FlagSpec] = [.text("json", valueName: "FILE", help: "also write the figures as JSON to FILE")]
        guard let options = parse(flags, arguments, command: "bench") else { return 64 }
        let jsonURL = options.text("json").map { URL(fileURLWithPath: $0) }
        if let url = jsonURL, let refusal = refusal(url, command: "bench") { return refusal }
        let result = BenchCommand.run(launcher: .hosted, catalog: catalog) { Terminal.writeError("  \($0)\n") }
        Terminal.writeOutput(
            BenchCommand.render(
                result, style: Style(enabled: Terminal.colourAllowed(fd: 1)), width: Terminal.width(fd: 1)))
        if let url = jsonURL,
            let failed = save({ try ExperimentReport.encoder(pretty: true).encode(result) }, to: url, command: "bench")
        {
            return failed
        }
        return 0
    }

    /// Writes the JSON that `encode` makes to `url` (`--json FILE`); `nil` when it was written,
    /// else the exit status after one line on stderr: 73 when the file cannot be created there,
    /// 74 when the JSON cannot be made or a write fails part way (a full disk, `EIO`, a file-size
    /// limit). The two are told apart because their remedies differ: another path, or the device.
    static func save(_ encode: () throws -> Data, to url: URL, command: String) -> Int32? {
        let data: Data
        do { data = try encode() } catch {
            Terminal.writeError(
                "lab \(command): the JSON could not be encoded: \(ExperimentReport.whyNotEncoded(error))\n")
            return 74
        }
        do { try AtomicFile.write(data, to: url) } catch {
            Terminal.writeError("lab \(command): \(error)\n")
            return error is AtomicFile.WriteFailure ? 74 : 73
        }
        return nil
    }

    /// Exit 73 with one line when `url` cannot take the command's output (see
    /// `AtomicFile.checkTarget`); checked before any work starts, so a long run is never
    /// wasted on an output it cannot write.
    static func refusal(_ url: URL, command: String) -> Int32? {
        do { try AtomicFile.checkTarget(url) } catch {
            Terminal.writeError("lab \(command): \(error)\n")
            return 73
        }
        return nil
    }
}
