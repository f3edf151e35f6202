import Foundation

extension CourierResponse {
    /// Decodes the body as JSON into `type`.
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws(CourierError) -> T {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            throw CourierError(
                .decodingFailed,
                "The body could not be decoded as \(T.self): \(CourierResponse.describe(error)). Check the type against the server's JSON (the body is in error.response).",
                url: url, response: self, underlyingError: error
            )
        }
    }

    /// Parses the body as a JSON value.
    public func json() throws(CourierError) -> JSONValue {
        try decode(JSONValue.self)
    }

    /// Decodes the body as a property list (XML or binary) into `type`.
    public func decodePropertyList<T: Decodable>(_ type: T.Type) throws(CourierError) -> T {
        do {
            return try PropertyListDecoder().decode(type, from: body)
        } catch {
            throw CourierError(
                .decodingFailed,
                "The body could not be decoded as a property list of \(T.self): \(CourierResponse.describe(error)).",
                url: url, response: self, underlyingError: error
            )
        }
    }

    /// Parses the body as a property list and returns its root object (a dictionary, array,
    /// string, number, date, data or boolean).
    public func propertyList() throws(CourierError) -> Any {
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            let value = try PropertyListSerialization.propertyList(from: body, options: [], format: &format)
            guard format == .xml || format == .binary else {
                throw CourierError(.decodingFailed, "The body is an OpenStep-style property list; only the XML and binary formats are accepted.", url: url, response: self)
            }
            return value
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(
                .decodingFailed, "The body is not a property list: \(error).",
                url: url, response: self, underlyingError: error
            )
        }
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "at $\(keys): \(context.debugDescription)"
        }
        switch error {
        case .typeMismatch(let type, let context): return "expected \(type) \(path(context))"
        case .valueNotFound(let type, let context): return "missing \(type) value \(path(context))"
        case .keyNotFound(let key, let context): return "missing key \"\(key.stringValue)\" \(path(context))"
        case .dataCorrupted(let context): return "invalid data \(path(context))"
        @unknown default: return "\(error)"
        }
    }
}
