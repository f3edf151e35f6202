import Courier
import Foundation

/// One request of a `courier batch` file.
struct BatchItem: Equatable {
    var method: String?
    var url: String
    var headers: [(name: String, value: String)]
    var body: String?

    static func == (lhs: BatchItem, rhs: BatchItem) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// Reads a `courier batch` file: a JSON array of objects with `url` (required), `method`,
/// `headers` (an object of name to value) and `body` (text).
enum BatchFile {
    static let keys: Set<String> = ["method", "url", "headers", "body"]

    static func read(_ path: String) throws -> [BatchItem] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.invalidInput, "\(path): the file cannot be read")
        }
        return try parse(data, name: path)
    }

    static func parse(_ data: Data, name: String) throws -> [BatchItem] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CommandFailure(.invalidInput, "\(name) is not valid JSON: \(error.localizedDescription)")
        }
        guard let array = root as? [Any] else {
            throw CommandFailure(.invalidInput, "\(name) must hold a JSON array of requests")
        }
        return try array.enumerated().map { index, element in
            func invalid(_ problem: String) -> CommandFailure {
                CommandFailure(.invalidInput, "\(name), request \(index): \(problem)")
            }
            guard let object = element as? [String: Any] else {
                throw invalid("expected an object with \"url\", and optionally \"method\", \"headers\" and \"body\"")
            }
            if let unknown = object.keys.filter({ !keys.contains($0) }).sorted().first {
                throw invalid("unknown key \"\(unknown)\"; the keys are method, url, headers and body")
            }
            guard let url = object["url"] as? String, !url.isEmpty else {
                throw invalid("\"url\" must be a non-empty string")
            }
            let method = try optionalString(object["method"], key: "method", invalid)
            let body = try optionalString(object["body"], key: "body", invalid)
            var headers: [(name: String, value: String)] = []
            if let value = object["headers"], !(value is NSNull) {
                guard let fields = value as? [String: Any] else {
                    throw invalid("\"headers\" must be an object of header name to text value")
                }
                for name in fields.keys.sorted() {
                    guard let text = fields[name] as? String else {
                        throw invalid("the value of header \"\(name)\" must be text")
                    }
                    headers.append((name, text))
                }
            }
            return BatchItem(method: method, url: url, headers: headers, body: body)
        }
    }

    private static func optionalString(_ value: Any?, key: String, _ invalid: (String) -> CommandFailure) throws -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw invalid("\"\(key)\" must be text") }
        return text
    }
}
