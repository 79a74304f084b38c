import Foundation
import LabHarness

/// `lab watch [--test-timeout D] [--quiet-timeout D] -- COMMAND [ARGS...]`, parsed.
public struct WatchOptions: Sendable, Equatable {
    /// How long one test may run before it counts as hung (`swift test` only).
    public var testTimeout: Seconds = 60
    /// Whether `--test-timeout` was given: for a command that is not `swift test` it cannot
    /// apply, and `lab watch` says so rather than leave the user trusting it.
    public var testTimeoutGiven = false
    /// How long the command may go without output and without using a CPU.
    public var quietTimeout: Seconds = 300
    /// The command and its arguments, as given.
    public var command: [String]

    /// The shortest and longest timeouts taken.
    public static let timeoutRange: ClosedRange<Seconds> = 0.1...86_400

    public struct Problem: Error, Equatable {
        public var message: String
    }

    /// The options of `arguments` (what follows `lab watch`), or the one line that says what is
    /// wrong with them.
    public static func parse(_ arguments: [String]) -> Result<WatchOptions, Problem> {
        guard let separator = arguments.firstIndex(of: "--") else {
            return .failure(
                Problem(
                    message:
                        "needs the command after '--' (lab watch [--test-timeout 60s] [--quiet-timeout 5m] -- swift test)"
                ))
        }
        var options = WatchOptions(command: Array(arguments[(separator + 1)...]))
        guard let program = options.command.first, !program.isEmpty else {
            return .failure(Problem(message: "no command after '--' (lab watch -- swift test)"))
        }
        var index = 0
        let flags = Array(arguments[..<separator])
        while index < flags.count {
            var flag = flags[index]
            var value: String?
            if let equals = flag.firstIndex(of: "=") {
                value = String(flag[flag.index(after: equals)...])
                flag = String(flag[..<equals])
            }
            guard flag == "--test-timeout" || flag == "--quiet-timeout" else {
                return .failure(
                    Problem(
                        message:
                            "unknown flag '\(UsageError.echo(flag))' (valid: --test-timeout, --quiet-timeout, --help; the command goes after '--')"
                    ))
            }
            if value == nil {
                index += 1
                guard index < flags.count else {
                    return .failure(Problem(message: "\(flag) needs a duration (60s, 500ms, 5m)"))
                }
                value = flags[index]
            }
            guard let seconds = duration(value!), timeoutRange.contains(seconds) else {
                return .failure(
                    Problem(
                        message:
                            "\(flag): '\(UsageError.echo(value!))' is not a duration from 100ms to 24h (60s, 500ms, 5m, 1h, or seconds)"
                    ))
            }
            if flag == "--test-timeout" {
                options.testTimeout = seconds
                options.testTimeoutGiven = true
            } else {
                options.quietTimeout = seconds
            }
            index += 1
        }
        return .success(options)
    }

    /// `60s`, `500ms`, `5m`, `1h` or a plain number of seconds (`1.5`); `nil` for anything else.
    public static func duration(_ text: String) -> Seconds? {
        let units: [(suffix: String, scale: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.scale
            break
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite
        else { return nil }
        return value * scale
    }
}
