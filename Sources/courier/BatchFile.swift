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
        try parse(PathCheck.contents(of: path, named: path), name: path)
    }

    static func parse(_ data: Data, name: String) throws -> [BatchItem] {
        // JSONDecoder rather than JSONSerialization: for a file of 20,000 requests it needs a
        // fraction of the memory.
        do {
            return try JSONDecoder().decode([DecodedItem].self, from: data).map(\.item)
        } catch let problem as Problem {
            throw CommandFailure(.invalidInput, "\(name), request \(problem.index): \(problem.message)")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw CommandFailure(.invalidInput, "\(name) must hold a JSON array of requests")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.count == 1 {
            let index = context.codingPath[0].intValue ?? 0
            throw CommandFailure(.invalidInput, "\(name), request \(index): expected an object with \"url\", and optionally \"method\", \"headers\" and \"body\"")
        } catch {
            throw CommandFailure(.invalidInput, "\(name) is not valid JSON: \(Self.describe(error))")
        }
    }

    /// A problem with one request of the file.
    private struct Problem: Error {
        var index: Int
        var message: String
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// One element of the array, checked key by key so that each mistake is named.
    private struct DecodedItem: Decodable {
        var item: BatchItem

        init(from decoder: any Decoder) throws {
            let index = decoder.codingPath.last?.intValue ?? 0
            func problem(_ message: String) -> Problem { Problem(index: index, message: message) }
            let object = try decoder.container(keyedBy: Key.self)
            if let unknown = object.allKeys.map(\.stringValue).filter({ !keys.contains($0) }).sorted().first {
                throw problem("unknown key \"\(unknown)\"; the keys are method, url, headers and body")
            }
            func text(_ key: String) throws -> String? {
                do {
                    return try object.decodeIfPresent(String.self, forKey: Key(key))
                } catch {
                    throw problem("\"\(key)\" must be text")
                }
            }
            guard let url = try? text("url"), !url.isEmpty else {
                throw problem("\"url\" must be a non-empty string")
            }
            var headers: [(name: String, value: String)] = []
            if object.contains(Key("headers")), try !object.decodeNil(forKey: Key("headers")) {
                guard let fields = try? object.nestedContainer(keyedBy: Key.self, forKey: Key("headers")) else {
                    throw problem("\"headers\" must be an object of header name to text value")
                }
                for name in fields.allKeys.map(\.stringValue).sorted() {
                    guard let value = try? fields.decode(String.self, forKey: Key(name)) else {
                        throw problem("the value of header \"\(name)\" must be text")
                    }
                    headers.append((name, value))
                }
            }
            item = BatchItem(method: try text("method"), url: url, headers: headers, body: try text("body"))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard case DecodingError.dataCorrupted(let context) = error else { return "\(error)" }
        let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return underlying ?? context.debugDescription
    }
}
