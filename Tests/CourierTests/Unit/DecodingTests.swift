import Foundation
import Testing

@testable import Courier

#if canImport(FoundationXML)
import CourierXML
import FoundationXML
#elseif os(macOS)
import CourierXML
#endif

private struct DecodedUser: Codable, Equatable, Sendable {
    struct Address: Codable, Equatable, Sendable { var city: String }
    var id: Int
    var name: String
    var address: Address?
}

private struct DecodedList: Codable, Equatable, Sendable {
    struct Item: Codable, Equatable, Sendable { var name: String }
    var items: [Item]
}

@Suite("Response decoding")
struct DecodingTests {
    private func response(_ text: String, contentType: String? = "application/json") -> CourierResponse {
        UnitSupport.response(contentType: contentType, text: text)
    }

    // MARK: decode

    @Test("decode succeeds on matching JSON")
    func decodeSuccess() throws {
        let user = try response(#"{"id":1,"name":"Ada","address":{"city":"Oslo"}}"#).decode(DecodedUser.self)
        #expect(user == DecodedUser(id: 1, name: "Ada", address: .init(city: "Oslo")))
    }

    @Test("decode uses the given decoder")
    func decodeCustomDecoder() throws {
        struct Snake: Decodable { var firstName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try response(#"{"first_name":"Ada"}"#).decode(Snake.self, using: decoder).firstName == "Ada")
        #expect(UnitSupport.error { try response(#"{"first_name":"Ada"}"#).decode(Snake.self) }?.kind == .decodingFailed)
    }

    @Test(
        "decode failures are decodingFailed and name the key path",
        arguments: [
            (#"{"id":1}"#, #"missing key "name" at $:"#),
            (#"{"id":"one","name":"Ada"}"#, "at $.id:"),
            (#"{"id":1,"name":"Ada","address":{}}"#, #"missing key "city" at $.address:"#),
            (#"{"id":1,"name":"Ada","address":{"city":5}}"#, "at $.address.city:"),
            (#"{"id":null,"name":"Ada"}"#, "at $.id:"),
        ]
    )
    func decodeFailure(body: String, path: String) throws {
        let response = response(body)
        let error = try #require(UnitSupport.error { try response.decode(DecodedUser.self) })
        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains(path), "message: \(error.message)")
        #expect(error.message.contains("DecodedUser"))
        #expect(error.response?.body == Data(body.utf8))
        #expect(error.underlyingError is DecodingError)
        #expect(error.url == response.url)
    }

    @Test("A missing key inside an array element names the index")
    func decodeFailureInArray() throws {
        let error = try #require(UnitSupport.error { try response(#"{"items":[{"name":"a"},{}]}"#).decode(DecodedList.self) })
        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains(#"missing key "name""#), "message: \(error.message)")
        #expect(error.message.contains("$.items[1]"), "message: \(error.message)")
    }

    @Test("Malformed JSON is decodingFailed")
    func decodeMalformed() throws {
        let error = try #require(UnitSupport.error { try response("{not json").decode(DecodedUser.self) })
        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains("invalid data"))
    }

    // MARK: json()

    @Test("json() parses every kind of value")
    func jsonValue() throws {
        let value = try response(#"{"s":"x","i":3,"d":1.5,"b":true,"n":null,"a":[1,"two"],"o":{"k":false}}"#).json()
        #expect(value["s"] == .string("x"))
        #expect(value["i"] == .integer(3))
        #expect(value["d"] == .double(1.5))
        #expect(value["b"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["a"] == [1, "two"])
        #expect(value["o"]?["k"]?.boolValue == false)
        #expect(value["a"]?[1]?.stringValue == "two")
        #expect(value["a"]?[2] == nil)
        #expect(value["i"]?.doubleValue == 3)
        #expect(value["missing"] == nil)
        #expect(try response("[0,1,-1]").json() == [0, 1, -1])
        #expect(try response("[true,false]").json() == [true, false])
    }

    @Test("json() on a non-JSON body is decodingFailed")
    func jsonFailure() throws {
        let error = try #require(UnitSupport.error { try response("<html>").json() })
        #expect(error.kind == .decodingFailed)
    }

    @Test("JSONValue description is compact sorted JSON")
    func jsonDescription() {
        let value: JSONValue = ["b": [1, 2.5, nil], "a": "x/y", "c": .double(.nan)]
        #expect(value.description == #"{"a":"x/y","b":[1,2.5,null],"c":null}"#)
    }

    // MARK: Property lists

    private func plistResponse<T: Encodable>(_ value: T, format: PropertyListSerialization.PropertyListFormat) throws -> CourierResponse {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return UnitSupport.response(headers: ["Content-Type": "application/x-plist"], body: try encoder.encode(value))
    }

    @Test("decodePropertyList reads XML and binary property lists")
    func decodePropertyList() throws {
        let user = DecodedUser(id: 7, name: "Ada", address: .init(city: "Oslo"))
        #expect(try plistResponse(user, format: .xml).decodePropertyList(DecodedUser.self) == user)
        #expect(try plistResponse(user, format: .binary).decodePropertyList(DecodedUser.self) == user)
    }

    @Test("decodePropertyList failure is decodingFailed")
    func decodePropertyListFailure() throws {
        let wrongShape = try plistResponse(["id": "x"], format: .xml)
        let error = try #require(UnitSupport.error { try wrongShape.decodePropertyList(DecodedUser.self) })
        #expect(error.kind == .decodingFailed)
        #expect(error.message.contains("DecodedUser"))
        let garbage = UnitSupport.response(body: Data("not a plist".utf8))
        #expect(UnitSupport.error { try garbage.decodePropertyList(DecodedUser.self) }?.kind == .decodingFailed)
    }

    @Test("propertyList() returns the root object")
    func propertyListRoot() throws {
        let root = try plistResponse(["name": "Ada", "city": "Oslo"], format: .binary).propertyList()
        let dictionary = try #require(root as? [String: Any])
        #expect(dictionary["name"] as? String == "Ada")
        #expect(dictionary["city"] as? String == "Oslo")
        let error = try #require(UnitSupport.error { try UnitSupport.response(body: Data("nope".utf8)).propertyList() })
        #expect(error.kind == .decodingFailed)
    }

    // MARK: XML

    #if canImport(FoundationXML) || os(macOS)
    @Test("xmlDocument parses a small document")
    func xmlDocument() throws {
        let body = #"<?xml version="1.0"?><feed><entry id="1">One</entry><entry id="2">Two</entry></feed>"#
        let document = try response(body, contentType: "application/xml").xmlDocument()
        let root = try #require(document.rootElement())
        #expect(root.name == "feed")
        let entries = root.elements(forName: "entry")
        #expect(entries.count == 2)
        #expect(entries.map { $0.stringValue ?? "" } == ["One", "Two"])
        #expect(entries.last?.attribute(forName: "id")?.stringValue == "2")
    }

    @Test("xmlDocument on malformed XML is decodingFailed")
    func xmlMalformed() throws {
        let error = try #require(UnitSupport.error { try response("<feed><entry></feed>", contentType: "application/xml").xmlDocument() })
        #expect(error.kind == .decodingFailed)
        #expect(error.response != nil)
    }
    #endif

    // MARK: Request decode closures

    @Test("Request<Data> returns the body as is")
    func requestData() throws {
        let bytes = Data([0xFF, 0x00, 0x7B])
        let request = CourierRequest<Data>(path: "/x")
        #expect(try request.decode(UnitSupport.response(body: bytes), JSONDecoder()) == bytes)
    }

    @Test("Request<String> returns the text by the charset rules")
    func requestString() throws {
        let request = CourierRequest<String>(path: "/x")
        let latin1 = UnitSupport.response(headers: ["Content-Type": "text/plain; charset=iso-8859-1"], body: Data([0xE9, 0x74, 0xE9]))
        #expect(try request.decode(latin1, JSONDecoder()) == "été")
        #expect(try request.decode(response("\"quoted\""), JSONDecoder()) == "\"quoted\"")
    }

    @Test("Request<Decodable> decodes JSON with the client's decoder unless it names one")
    func requestDecodable() throws {
        struct Snake: Decodable, Sendable { var firstName: String }
        let body = response(#"{"first_name":"Ada","firstName":"Camel"}"#)
        let snakeDecoder = JSONDecoder()
        snakeDecoder.keyDecodingStrategy = .convertFromSnakeCase

        let plain = CourierRequest<Snake>(path: "/x")
        #expect(try plain.decode(body, JSONDecoder()).firstName == "Camel")
        #expect(try plain.decode(body, snakeDecoder).firstName == "Ada")

        let own = CourierRequest<Snake>(path: "/x", decoder: snakeDecoder)
        #expect(try own.decode(body, JSONDecoder()).firstName == "Ada")

        let user = CourierRequest<DecodedUser>(path: "/x")
        #expect(try user.decode(response(#"{"id":2,"name":"B"}"#), JSONDecoder()) == DecodedUser(id: 2, name: "B"))
        #expect(throws: CourierError.self) { try user.decode(response("{}"), JSONDecoder()) }
    }

    @Test("Request<Response> returns the response and Request<Void> returns nothing")
    func requestResponseAndVoid() throws {
        let original = UnitSupport.response(status: 201, headers: ["X": "1"], body: Data("b".utf8))
        let whole = try CourierRequest<CourierResponse>(path: "/x").decode(original, JSONDecoder())
        #expect(whole.status == 201)
        #expect(whole.headers["X"] == "1")
        #expect(whole.body == Data("b".utf8))
        let void = CourierRequest<Void>(method: .delete, path: "/x")
        try void.decode(UnitSupport.response(body: Data("not json".utf8)), JSONDecoder())
        #expect(void.method == .delete)
    }

    @Test("CourierRequest.map keeps every field and changes the decoding")
    func requestMap() throws {
        var request = CourierRequest<Data>(method: .post, path: "/items", body: .text("hi"))
        request.usesCDN = true
        request.query = [URLQueryItem(name: "q", value: "1")]
        request.parameters = ["p": 1]
        request.parameterEncoding = .body(.json)
        request.headers = ["X-A": "1"]
        request.timeout = .seconds(3)
        request.priority = .high
        request.cachePolicy = .reload
        request.validators = [.statusCode([201])]
        request.sensitiveHeaders = ["x-key"]
        request.maximumBodySize = 99
        request.tag = 5
        request.userInfo = ["k": "v"]

        let mapped = request.map { response, _ in response.body.count }
        #expect(try mapped.decode(UnitSupport.response(body: Data("abcd".utf8)), JSONDecoder()) == 4)
        #expect(mapped.method == .post)
        #expect(mapped.path == "/items")
        #expect(mapped.usesCDN)
        #expect(mapped.query == [URLQueryItem(name: "q", value: "1")])
        #expect(mapped.parameters == ["p": 1])
        #expect(mapped.parameterEncoding == .body(.json))
        #expect(mapped.headers == ["X-A": "1"])
        #expect(mapped.body?.bytes == Data("hi".utf8))
        #expect(mapped.timeout == .seconds(3))
        #expect(mapped.priority == .high)
        #expect(mapped.cachePolicy == .reload)
        #expect(mapped.validators.map(\.name) == ["status code"])
        #expect(mapped.sensitiveHeaders == ["x-key"])
        #expect(mapped.maximumBodySize == 99)
        #expect(mapped.tag == 5)
        #expect(mapped.userInfo == ["k": "v"])
    }

    @Test("A request's default validators accept 2xx only")
    func defaultValidators() {
        let request = CourierRequest<Data>(path: "/x")
        #expect(request.validators.count == 1)
        #expect(UnitSupport.error { try request.validators[0].validate(UnitSupport.response(status: 204)) } == nil)
        #expect(UnitSupport.error { try request.validators[0].validate(UnitSupport.response(status: 404)) }?.kind == .validationFailed)
    }
}
