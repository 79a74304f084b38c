import Foundation

/// Parses `--flag value`, `--flag=value` and `--toggle` against declared flags.
///
/// Every mistake becomes a `UsageError` whose message is one line naming the flag, what was
/// wrong and what is valid. Nothing here traps: numbers are parsed with failable initialisers
/// and checked against their ranges (NaN and infinity are refused).
public struct CommandLineParser: Sendable {
    public var program: String
    public var flags: [FlagSpec]

    public init(program: String, flags: [FlagSpec]) {
        self.program = program
        self.flags = flags
    }

    public func parse(_ arguments: [String]) throws -> ParsedOptions {
        var given: [String: String?] = [:]
        var order: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw UsageError("unexpected argument '\(UsageError.echo(argument))' (flags start with --; see --help)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = flags.first(where: { $0.name == name }) else {
                let visible = flags.filter { !$0.hidden }.map { "--\($0.name)" }.joined(separator: ", ")
                throw UsageError("unknown flag '--\(UsageError.echo(name))' (valid flags: \(visible))")
            }
            guard given[name] == nil else { throw UsageError("--\(name) is given twice") }
            if case .toggle = spec.kind {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                given[name] = .some(nil)
            } else {
                var value = inlineValue
                if value == nil {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError("--\(name) needs a value: \(spec.rangeText)")
                    }
                    value = arguments[index]
                    index += 1
                }
                given[name] = .some(value)
            }
            order.append(name)
        }

        let quick = given["quick"] != nil
        var values: [String: ParsedOptions.Value] = [:]
        for spec in flags {
            let raw = given[spec.name] ?? nil
            values[spec.name] = try value(for: spec, raw: raw, present: given[spec.name] != nil, quick: quick)
        }
        return ParsedOptions(values: values, given: Set(order))
    }

    private func value(for spec: FlagSpec, raw: String?, present: Bool, quick: Bool) throws -> ParsedOptions.Value {
        switch spec.kind {
        case .toggle:
            return .toggle(present)
        case .integer(let range, let defaultValue, let quickValue):
            guard let raw else { return .integer(quick ? (quickValue ?? defaultValue) : defaultValue) }
            guard let n = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("--\(spec.name) takes \(spec.rangeText), not '\(UsageError.echo(raw))'")
            }
            guard range.contains(n) else {
                throw UsageError("--\(spec.name) \(UsageError.echo(raw)) is out of range: \(spec.rangeText)")
            }
            return .integer(n)
        case .decimal(let range, let defaultValue, let quickValue, _):
            guard let raw else { return .decimal(quick ? (quickValue ?? defaultValue) : defaultValue) }
            guard let d = Double(raw.trimmingCharacters(in: .whitespaces)), d.isFinite else {
                throw UsageError("--\(spec.name) takes \(spec.rangeText), not '\(UsageError.echo(raw))'")
            }
            guard range.contains(d) else {
                throw UsageError("--\(spec.name) \(UsageError.echo(raw)) is out of range: \(spec.rangeText)")
            }
            return .decimal(d)
        case .choice(let choices, let defaultValue):
            guard let raw else { return .word(defaultValue) }
            guard choices.contains(raw) else {
                throw UsageError(
                    "--\(spec.name): unknown value '\(UsageError.echo(raw))' (valid: \(choices.joined(separator: ", ")))"
                )
            }
            return .word(raw)
        case .list(let choices):
            guard let raw else { return .list([]) }
            let items = raw.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if items.contains(where: \.isEmpty) {
                throw UsageError(
                    "--\(spec.name) has an empty name in '\(UsageError.echo(raw))' (valid: \(choices.joined(separator: ", ")))"
                )
            }
            for item in items where !choices.contains(item) {
                throw UsageError(
                    "--\(spec.name): unknown name '\(UsageError.echo(item))' (valid: \(choices.joined(separator: ", ")))"
                )
            }
            var seen = Set<String>()
            return .list(items.filter { seen.insert($0).inserted })
        case .text(let defaultValue):
            guard let raw else { return .text(defaultValue) }
            guard !raw.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw UsageError("--\(spec.name) needs \(spec.rangeText)")
            }
            return .text(raw)
        }
    }
}
