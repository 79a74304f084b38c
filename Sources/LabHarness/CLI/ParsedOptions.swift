/// The values of every declared flag after parsing: given on the command line, or defaulted
/// (with `--quick` defaults when `--quick` was given).
public struct ParsedOptions: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case toggle(Bool)
        case integer(Int)
        case decimal(Double)
        case word(String)
        case list([String])
        case text(String?)
    }

    /// Flag name (without dashes) to value, for every declared flag.
    public private(set) var values: [String: Value]
    /// The flags that were given explicitly.
    public private(set) var given: Set<String>

    init(values: [String: Value], given: Set<String>) {
        self.values = values
        self.given = given
    }

    public func bool(_ name: String) -> Bool {
        if case .toggle(let b)? = values[name] { return b }
        return false
    }

    public func int(_ name: String) -> Int {
        guard case .integer(let n)? = values[name] else {
            preconditionFailure("--\(name) is not a declared whole-number flag")
        }
        return n
    }

    public func double(_ name: String) -> Double {
        switch values[name] {
        case .decimal(let d)?: return d
        case .integer(let n)?: return Double(n)
        default: preconditionFailure("--\(name) is not a declared number flag")
        }
    }

    public func string(_ name: String) -> String {
        guard case .word(let s)? = values[name] else { preconditionFailure("--\(name) is not a declared choice flag") }
        return s
    }

    /// A choice flag's value as the enum it was declared from (`FlagSpec.choice(_:_:default:help:)`).
    public func choice<E: RawRepresentable>(_ name: String, as type: E.Type = E.self) -> E where E.RawValue == String {
        guard let value = E(rawValue: string(name)) else { preconditionFailure("--\(name) holds no case of \(E.self)") }
        return value
    }

    /// A text flag's value, `nil` when neither given nor defaulted.
    public func text(_ name: String) -> String? {
        if case .text(let t)? = values[name] { return t }
        return nil
    }

    public func list(_ name: String) -> [String] {
        if case .list(let l)? = values[name] { return l }
        return []
    }

    public func wasGiven(_ name: String) -> Bool { given.contains(name) }

    public var quick: Bool { bool("quick") }
    public var json: Bool { bool("json") }

    /// Overrides one value, as if given on the command line.
    public mutating func set(_ name: String, _ value: Value) {
        values[name] = value
        given.insert(name)
    }
}
