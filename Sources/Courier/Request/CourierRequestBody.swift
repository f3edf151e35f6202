import Foundation

/// The body of a request and its media type.
///
/// Build one with a static factory; each sets the matching `Content-Type` unless the request
/// already names one:
///
/// ```swift
/// request.body = .text("hello")
/// request.body = .form(["q": "swift", "page": 2])
/// request.body = try .json(User(name: "Ada"))
/// ```
public struct CourierRequestBody: Sendable {
    enum Content: Sendable {
        case bytes(Data)
        case stream(@Sendable () -> AsyncThrowingStream<Data, any Error>)
        case writer(@Sendable (RequestBodyWriter) async throws -> Headers)
    }

    let content: Content
    /// The media type sent as `Content-Type`, when the request sets none itself.
    public var contentType: String?
    /// The length in bytes, when known before sending (it becomes `Content-Length`).
    public let length: Int64?
    /// Whether the body's pieces depend on the response (full duplex: a chat, a proxy, a
    /// body that answers what the server says), so that the response must reach its reader
    /// while the body is still being written.
    ///
    /// Every transport of the default stack sends a streamed body as it is produced and hands
    /// the response over as it arrives, over HTTP/1.1 and HTTP/2, whether or not this is set.
    /// A transport that delivers nothing of the response before the body has ended refuses a
    /// duplex body with ``CourierError/Kind/invalidConfiguration`` instead of waiting for its
    /// timeout: `CourierURLSessionTransport` on Linux does. `false` by default.
    public var isDuplex = false
    /// Whether the body can be produced only once (``nonrestartable(knownLength:_:)``): the
    /// request is then never sent again, and a response that would need it again (a 307 or
    /// 308 redirect, a challenge) is delivered as it is.
    package var isOneShot = false
    /// Counts the bytes a streamed body has read but not yet handed over (multipart bodies).
    var bufferGauge: BufferGauge?
    /// Told of every piece the transport takes, when someone watches the upload.
    var progressReporter: ProgressReporter?
    /// The parts of a multipart body, for a transport that can send its files without reading
    /// them into memory; the stream produces the same bytes.
    var multipartSegments: [MultipartSegment]?
    /// The file whose whole contents are the body (``file(_:contentType:)``), as it was when it
    /// was measured, for a transport that can hand the file itself to the system.
    package var sourceFile: SourceFile?

    /// A file a body is read from, and what identified its contents when it was measured.
    package struct SourceFile: Sendable, Hashable {
        /// Where the file is.
        package var url: URL
        /// Its size in bytes.
        package var size: Int64
        /// Its modification time, since the epoch.
        package var modified: Duration

        /// Throws unless the file still has the size and modification time it was measured
        /// with; `isSent` tells whether the server may already have received its bytes.
        ///
        /// - Throws: ``CourierError/Kind/invalidBody``.
        package func checkUnchanged(isSent: Bool) throws(CourierError) {
            let now = try? FileSnapshot.measure(url)
            guard let now, now.size == size, now.modified == modified else {
                throw MultipartReader.changed(url, expected: size, found: now?.size, isSent: isSent)
            }
        }
    }

    init(content: Content, contentType: String?, length: Int64?) {
        self.content = content
        self.contentType = contentType
        self.length = length
    }

    /// Raw bytes.
    public static func data(_ data: Data, contentType: String? = "application/octet-stream") -> CourierRequestBody {
        CourierRequestBody(content: .bytes(data), contentType: contentType, length: Int64(data.count))
    }

    /// Text, encoded as UTF-8.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> CourierRequestBody {
        data(Data(text.utf8), contentType: contentType)
    }

    /// An `application/x-www-form-urlencoded` body from ordered pairs.
    public static func form(_ pairs: [(String, String)]) -> CourierRequestBody {
        let text = pairs.map {
            PercentEncoding.encodeFormComponent($0.0) + "=" + PercentEncoding.encodeFormComponent($0.1)
        }.joined(separator: "&")
        return data(Data(text.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// An `application/x-www-form-urlencoded` body from parameters (see ``ParameterValue`` for
    /// how arrays and dictionaries are flattened).
    public static func form(_ parameters: CourierParameters) -> CourierRequestBody {
        form(parameters.flattenedPairs)
    }

    /// A JSON body from an `Encodable` value.
    public static func json<Value: Encodable>(_ value: Value, encoder: JSONEncoder = JSONEncoder()) throws(CourierError) -> CourierRequestBody {
        do {
            return data(try encoder.encode(value), contentType: "application/json")
        } catch {
            throw CourierError(
                .invalidBody,
                "The value of type \(Value.self) could not be encoded as JSON: \(error). Check its Encodable conformance.",
                underlyingError: error
            )
        }
    }

    /// A JSON body from a ``JSONValue``; object keys are written in ascending order.
    public static func json(_ value: JSONValue) -> CourierRequestBody {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail except for non-finite numbers, which become null.
        let bytes = (try? encoder.encode(value.replacingNonFiniteNumbers())) ?? Data("null".utf8)
        return data(bytes, contentType: "application/json")
    }

    /// A property-list body from an `Encodable` value.
    public static func propertyList<Value: Encodable>(_ value: Value, format: PropertyListFormat = .xml) throws(CourierError) -> CourierRequestBody {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format == .xml ? .xml : .binary
        do {
            return data(try encoder.encode(value), contentType: "application/x-plist")
        } catch {
            throw CourierError(
                .invalidBody,
                "The value of type \(Value.self) could not be encoded as a property list: \(error). Property lists have no null; use optional keys that are left out.",
                underlyingError: error
            )
        }
    }

    /// A body whose bytes are produced as they are sent. `makeStream` is called once per
    /// attempt, so that a redirect (307/308) or a retry can send the body again.
    public static func stream(
        length: Int64?,
        contentType: String? = "application/octet-stream",
        _ makeStream: @escaping @Sendable () -> AsyncThrowingStream<Data, any Error>
    ) -> CourierRequestBody {
        CourierRequestBody(content: .stream(makeStream), contentType: contentType, length: length)
    }

    /// Encodes parameters in the given body encoding.
    static func encoding(_ parameters: CourierParameters, as encoding: BodyEncoding) throws(CourierError) -> CourierRequestBody {
        switch encoding {
        case .form:
            return form(parameters)
        case .json:
            return json(ParameterValue.dictionary(parameters).jsonValue)
        case .propertyList(let format):
            return try propertyList(ParameterValue.dictionary(parameters).jsonValue.propertyListSafe(), format: format)
        }
    }

    /// The whole body when it is held in memory.
    package var bytes: Data? {
        if case .bytes(let data) = content { return data }
        return nil
    }
}

extension JSONValue {
    func replacingNonFiniteNumbers() -> JSONValue {
        switch self {
        case .double(let value) where !value.isFinite: return .null
        case .array(let items): return .array(items.map { $0.replacingNonFiniteNumbers() })
        case .object(let members): return .object(members.mapValues { $0.replacingNonFiniteNumbers() })
        default: return self
        }
    }

    /// Property lists cannot hold null; refuse it with a clear error.
    func propertyListSafe() throws(CourierError) -> JSONValue {
        switch self {
        case .null:
            throw CourierError(.invalidBody, "A property list cannot hold a null parameter; remove it or send JSON instead.")
        case .array(let items):
            var result: [JSONValue] = []
            for item in items { result.append(try item.propertyListSafe()) }
            return .array(result)
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, value) in members { result[key] = try value.propertyListSafe() }
            return .object(result)
        default:
            return self
        }
    }
}
