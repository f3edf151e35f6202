import Courier
import Foundation

extension RequestItems {
    /// The JSON object `fields` make, keys in the order first given; a key given again keeps
    /// its place and takes the last value, as in HTTPie.
    ///
    /// A name holding `[` or `]` is HTTPie 3's nested path (`a[b]=c`), which Courier does not
    /// build: it is refused rather than sent as a flat key; `\[` and `\]` stand for the
    /// characters themselves.
    static func jsonObject(_ fields: [RequestItem]) throws(CommandFailure) -> String {
        var keys: [String] = []
        var values: [String: String] = [:]
        for field in fields {
            let key = try jsonKey(field)
            let value: String
            switch field.kind {
            case .string: value = JSONValue.string(field.value).description
            case .stringFile: value = JSONValue.string(try fileText(field)).description
            case .json: value = field.value.trimmingCharacters(in: .whitespacesAndNewlines)
            case .jsonFile:
                let text = try fileText(field)
                try RequestItem.checkJSON(text, label: field.label)
                value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            default: continue
            }
            if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        }
        let members = keys.map { JSONValue.string($0).description + ":" + values[$0, default: "null"] }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The object key a field's name stands for: `\[` and `\]` unescaped, a nested path refused.
    private static func jsonKey(_ field: RequestItem) throws(CommandFailure) -> String {
        var key = String.UnicodeScalarView()
        var scalars = field.name.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\\":
                guard let next = scalars.next() else {
                    key.append(scalar)
                    break
                }
                if next != "[" && next != "]" { key.append(scalar) }
                key.append(next)
            case "[", "]":
                throw CommandFailure(
                    .invalidInput,
                    "request item \(field.label): nested JSON paths (a[b]=c, a[]=c) are not supported; give the whole value with name:='{…}', or write \\[ and \\] for a key that holds brackets"
                )
            default:
                key.append(scalar)
            }
        }
        return String(key)
    }
}
