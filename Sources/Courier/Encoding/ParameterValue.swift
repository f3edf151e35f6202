/// A parameter value: a scalar, an array or a dictionary, which may nest.
///
/// Parameters are the "arguments" of a request. For GET, HEAD and DELETE they go into the
/// query string; for other methods into the body, in the request's body encoding.
///
/// In a query string or a form body they are flattened by one convention:
/// - scalars: `name=value`; `true`/`false` for booleans; an empty value for ``null``;
/// - arrays: `name[]=a&name[]=b`;
/// - dictionaries: `name[key]=value`, keys in ascending order, nesting as deep as needed
///   (`user[address][city]=Oslo`).
///
/// Top-level parameters are written in ascending key order too, so the same parameters always
/// give the same bytes. Brackets are percent-encoded (`%5B`, `%5D`).
public indirect enum ParameterValue: Sendable, Hashable, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean, written `true` or `false`.
    case bool(Bool)
    /// An ordered list.
    case array([ParameterValue])
    /// A dictionary; flattened in ascending key order.
    case dictionary([String: ParameterValue])
    /// No value: an empty value in queries and forms, `null` in JSON.
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, ParameterValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }

    /// The text a scalar is written as in a query or form; `nil` for arrays and dictionaries.
    var scalarText: String? {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return ""
        case .array, .dictionary: return nil
        }
    }

    /// Flattens `name = self` into ordered `(name, value)` pairs by the bracket convention.
    func flattened(name: String) -> [(String, String)] {
        switch self {
        case .array(let items):
            return items.flatMap { $0.flattened(name: name + "[]") }
        case .dictionary(let entries):
            return entries.keys.sorted().flatMap { key in
                entries[key]!.flattened(name: "\(name)[\(key)]")
            }
        default:
            return [(name, scalarText ?? "")]
        }
    }
}

/// Named parameters of a request.
public typealias CourierParameters = [String: ParameterValue]

extension Dictionary where Key == String, Value == ParameterValue {
    /// The parameters flattened to ordered pairs (see ``ParameterValue``).
    var flattenedPairs: [(String, String)] {
        keys.sorted().flatMap { self[$0]!.flattened(name: $0) }
    }
}
