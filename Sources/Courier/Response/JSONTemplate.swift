/// The expected shape of a JSON document, for ``ResponseValidator/json(_:)``.
///
/// ```swift
/// let template: JSONTemplate = .object([
///     "id": .number,
///     "name": .string,
///     "tags": .array(of: .string),
///     "nickname": .optional(.string),
/// ])
/// ```
/// Objects may hold more keys than the template lists; every listed key must be present unless
/// it is ``optional(_:)``.
public indirect enum JSONTemplate: Sendable, Hashable {
    /// A string.
    case string
    /// A number.
    case number
    /// An integer.
    case integer
    /// A boolean.
    case bool
    /// `null`.
    case null
    /// Anything.
    case any
    /// An array whose every element matches.
    case array(of: JSONTemplate)
    /// An object with at least these keys, each matching its template.
    case object([String: JSONTemplate])
    /// The value may be absent or null; when present it matches.
    case optional(JSONTemplate)
    /// Any one of the templates.
    case oneOf([JSONTemplate])

    /// Describes the first place `value` does not match, or returns `nil` when it matches.
    public func mismatch(in value: JSONValue?, path: String) -> String? {
        switch (self, value) {
        case (.optional, nil), (.optional, .null?): return nil
        case (.optional(let inner), let value?): return inner.mismatch(in: value, path: path)
        case (_, nil): return "\(path) is missing"
        case (.any, _): return nil
        case (.string, .string?), (.bool, .bool?), (.null, .null?), (.integer, .integer?),
            (.number, .integer?), (.number, .double?):
            return nil
        case (.integer, .double(let number)?) where number.rounded() == number:
            return nil
        case (.array(let element), .array(let items)?):
            for (index, item) in items.enumerated() {
                if let problem = element.mismatch(in: item, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.object(let members), .object(let object)?):
            for key in members.keys.sorted() {
                if let problem = members[key]!.mismatch(in: object[key], path: "\(path).\(key)") { return problem }
            }
            return nil
        case (.oneOf(let choices), let value?):
            if choices.contains(where: { $0.mismatch(in: value, path: path) == nil }) { return nil }
            return "\(path) matches none of the allowed shapes (found \(value.typeName))"
        case (_, let value?):
            return "\(path) should be \(name) but is \(value.typeName)"
        }
    }

    private var name: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .integer: return "an integer"
        case .bool: return "a boolean"
        case .null: return "null"
        case .any: return "anything"
        case .array: return "an array"
        case .object: return "an object"
        case .optional(let inner): return "absent or \(inner.name)"
        case .oneOf: return "one of several shapes"
        }
    }
}
