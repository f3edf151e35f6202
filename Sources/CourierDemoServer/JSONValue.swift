import Foundation

/// A minimal JSON document model used to build the test server's response bodies.
///
/// Objects keep the order of their members as built; members parsed from a request body are sorted by key.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// Parses a JSON document (any top-level value), or returns `nil` if `bytes` is not valid JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// An object whose members are `pairs`; a name seen more than once becomes an array of its values.
    static func multiValueObject(_ pairs: [(String, String)]) -> JSONValue {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in pairs {
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        return .object(
            order.map { name in
                let all = values[name] ?? []
                return (name, all.count == 1 ? .string(all[0]) : .array(all.map(JSONValue.string)))
            }
        )
    }

    /// The UTF-8 encoded document, pretty-printed with two spaces and terminated by a newline.
    func encoded() -> [UInt8] {
        Array((self.serialized(pretty: true) + "\n").utf8)
    }

    /// The document as text; compact unless `pretty` is set.
    func serialized(pretty: Bool = false) -> String {
        var out = ""
        self.write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        let newline = pretty ? "\n" : ""
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = pretty ? String(repeating: "  ", count: indent) : ""
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "[" + newline
            for (index, item) in items.enumerated() {
                out += pad
                item.write(into: &out, pretty: pretty, indent: indent + 1)
                out += (index == items.count - 1 ? "" : ",") + newline
            }
            out += closePad + "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{" + newline
            for (index, (key, value)) in members.enumerated() {
                out += pad
                Self.writeString(key, into: &out)
                out += pretty ? ": " : ":"
                value.write(into: &out, pretty: pretty, indent: indent + 1)
                out += (index == members.count - 1 ? "" : ",") + newline
            }
            out += closePad + "}"
        }
    }

    private static func writeString(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd {
                items.append(try array.decode(JSONValue.self))
            }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            let keys = object.allKeys.map(\.stringValue).sorted()
            self = .object(try keys.map { ($0, try object.decode(JSONValue.self, forKey: AnyKey($0))) })
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { self.stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
