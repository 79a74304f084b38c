/// One command-line flag an experiment declares. `--help` text, parsing, range checks, the
/// `--quick` value and the JSON `parameters` entry all come from this declaration.
public struct FlagSpec: Sendable {
    public enum Kind: Sendable {
        /// Present or absent: `--json`.
        case toggle
        /// A whole number within `range`; `quick` replaces `default` under `--quick`.
        case integer(range: ClosedRange<Int>, default: Int, quick: Int?)
        /// A decimal number within `range`, in `unit` (such as `s`); `quick` as above.
        case decimal(range: ClosedRange<Double>, default: Double, quick: Double?, unit: String)
        /// One word out of `choices`.
        case choice([String], default: String)
        /// A comma-separated subset of `choices`; empty means "the default selection".
        case list([String])
        /// Free text, such as a file path; must not be empty.
        case text(default: String?)
    }

    /// Without the dashes: `tasks` for `--tasks`.
    public var name: String
    public var kind: Kind
    /// One line for `--help`.
    public var help: String
    /// Placeholder in `--help`: `N`, `SECONDS`, `NAME[,NAME...]`.
    public var valueName: String
    /// Key in the report's `parameters` (such as `timeout_s`); `nil` keeps it out of reports.
    var reportKey: String?
    /// Internal flags are parsed but not listed in `--help`.
    public var hidden: Bool

    public init(
        _ name: String, _ kind: Kind, help: String, valueName: String? = nil,
        reportKey: String? = nil, hidden: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.help = help
        self.hidden = hidden
        switch kind {
        case .toggle: self.valueName = ""
        case .integer: self.valueName = valueName ?? "N"
        case .decimal(_, _, _, let unit): self.valueName = valueName ?? (unit == "s" ? "SECONDS" : "X")
        case .choice(let choices, _): self.valueName = valueName ?? choices.joined(separator: "|")
        case .list: self.valueName = valueName ?? "NAME[,NAME...]"
        case .text: self.valueName = valueName ?? "TEXT"
        }
        self.reportKey = reportKey
    }

    /// A whole-number flag.
    public static func integer(
        _ name: String, default value: Int, quick: Int? = nil, range: ClosedRange<Int>,
        help: String, reportKey: String? = nil, valueName: String? = nil
    ) -> FlagSpec {
        FlagSpec(
            name, .integer(range: range, default: value, quick: quick), help: help, valueName: valueName,
            reportKey: reportKey ?? name.replacingDashes)
    }

    /// A duration in seconds; reported as `NAME_s`.
    public static func seconds(
        _ name: String, default value: Double, quick: Double? = nil, range: ClosedRange<Double>,
        help: String, reportKey: String? = nil
    ) -> FlagSpec {
        FlagSpec(
            name, .decimal(range: range, default: value, quick: quick, unit: "s"), help: help,
            reportKey: reportKey ?? name.replacingDashes + "_s")
    }

    /// One of a few words.
    public static func choice(
        _ name: String, _ choices: [String], default value: String, help: String,
        reportKey: String? = nil
    ) -> FlagSpec {
        FlagSpec(name, .choice(choices, default: value), help: help, reportKey: reportKey ?? name.replacingDashes)
    }

    /// One case of an enum, named by its raw value: `--gate-with semaphore`. Read it back with
    /// `options.choice("gate-with", as: GateKind.self)`, so a new case is a new choice.
    public static func choice<E: CaseIterable & RawRepresentable>(
        _ name: String, _ type: E.Type, default value: E, help: String,
        reportKey: String? = nil
    ) -> FlagSpec where E.RawValue == String {
        choice(name, E.allCases.map(\.rawValue), default: value.rawValue, help: help, reportKey: reportKey)
    }

    /// A free-text value such as a path (`valueName` is what `--help` calls it: `FILE`).
    public static func text(_ name: String, valueName: String, default value: String? = nil, help: String) -> FlagSpec {
        FlagSpec(name, .text(default: value), help: help, valueName: valueName)
    }

    /// A switch.
    public static func toggle(_ name: String, help: String, reportKey: String? = nil, hidden: Bool = false) -> FlagSpec
    {
        FlagSpec(name, .toggle, help: help, reportKey: reportKey, hidden: hidden)
    }

    /// What `--help` says about the valid values and defaults.
    var rangeText: String {
        switch kind {
        case .toggle: return ""
        case .integer(let range, _, _): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .decimal(let range, _, _, let unit):
            return "a number from \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound))"
                + (unit.isEmpty ? "" : " \(unit)")
        case .choice(let choices, _): return "one of " + choices.joined(separator: ", ")
        case .list(let choices): return "a comma-separated list of " + choices.joined(separator: ", ")
        case .text: return "a non-empty \(valueName.lowercased())"
        }
    }

    var defaultText: String? {
        switch kind {
        case .toggle, .list: return nil
        case .text(let d): return d.map { "default \($0)" }
        case .integer(_, let d, let q): return "default \(d)" + (q.map { ", --quick \($0)" } ?? "")
        case .decimal(_, let d, let q, let unit):
            let u = unit.isEmpty ? "" : " \(unit)"
            return "default \(Format.number(d))\(u)" + (q.map { ", --quick \(Format.number($0))\(u)" } ?? "")
        case .choice(_, let d): return "default \(d)"
        }
    }
}

extension String {
    var replacingDashes: String { replacingOccurrences(of: "-", with: "_") }
}

/// Bad input on the command line: one line for stderr, and exit status 64 (`EX_USAGE`).
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public static let exitStatus: Int32 = 64
}
