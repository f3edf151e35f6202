import Foundation
import Testing

@testable import Courier

private struct BodyUser: Codable, Equatable {
    var name: String
    var age: Int
    var email: String?
}

private struct Unencodable: Encodable {
    struct Failure: Error {}
    func encode(to encoder: any Encoder) throws { throw Failure() }
}

@Suite("RequestBody factories")
struct BodyEncodingTests {
    // MARK: data / text

    @Test("data keeps the bytes, defaults to application/octet-stream and knows its length")
    func data() throws {
        let bytes = Data([0x00, 0xFF, 0x10, 0x0D, 0x0A])
        let body = CourierRequestBody.data(bytes)
        #expect(body.bytes == bytes)
        #expect(body.contentType == "application/octet-stream")
        #expect(body.length == 5)
    }

    @Test("data with a custom or no content type")
    func dataContentType() {
        #expect(CourierRequestBody.data(Data("x".utf8), contentType: "image/png").contentType == "image/png")
        #expect(CourierRequestBody.data(Data("x".utf8), contentType: nil).contentType == nil)
        let empty = CourierRequestBody.data(Data())
        #expect(empty.length == 0)
        #expect(empty.bytes == Data())
    }

    @Test("text is UTF-8 with a charset-qualified content type")
    func text() {
        let body = CourierRequestBody.text("héllo 😀")
        #expect(body.bytes == Data("héllo 😀".utf8))
        #expect(body.bytes == Data([0x68, 0xC3, 0xA9, 0x6C, 0x6C, 0x6F, 0x20, 0xF0, 0x9F, 0x98, 0x80]))
        #expect(body.contentType == "text/plain; charset=utf-8")
        #expect(body.length == 11)
        #expect(CourierRequestBody.text("<b/>", contentType: "text/html").contentType == "text/html")
    }

    // MARK: form

    @Test("form(pairs) keeps the pairs' order and duplicates")
    func formPairs() {
        let body = CourierRequestBody.form([("z", "1"), ("a", "two words"), ("z", "3"), ("k~", "v*")])
        #expect(UnitSupport.text(of: body) == "z=1&a=two+words&z=3&k%7E=v*")
        #expect(body.contentType == "application/x-www-form-urlencoded")
        #expect(body.length == Int64("z=1&a=two+words&z=3&k%7E=v*".utf8.count))
    }

    @Test("form(parameters) sorts and flattens")
    func formParameters() {
        let body = CourierRequestBody.form(["b": ["y": 1, "x": 2], "a": ["p", "q"]] as CourierParameters)
        #expect(UnitSupport.text(of: body) == "a%5B%5D=p&a%5B%5D=q&b%5Bx%5D=2&b%5By%5D=1")
        #expect(body.contentType == "application/x-www-form-urlencoded")
    }

    // MARK: JSON

    @Test("json(Encodable) uses the given encoder, byte for byte")
    func jsonEncodable() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = try CourierRequestBody.json(BodyUser(name: "Ada", age: 36, email: "a/b@example.com"), encoder: encoder)
        #expect(UnitSupport.text(of: body) == #"{"age":36,"email":"a\/b@example.com","name":"Ada"}"#)
        #expect(body.contentType == "application/json")
        #expect(body.length == Int64(try #require(body.bytes).count))
    }

    @Test("json(Encodable) with snake_case keys and no escaped slashes")
    func jsonEncodableStrategies() throws {
        struct Payload: Encodable { var userName: String; var homePage: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let body = try CourierRequestBody.json(Payload(userName: "ada", homePage: "https://x/y"), encoder: encoder)
        #expect(UnitSupport.text(of: body) == #"{"home_page":"https://x/y","user_name":"ada"}"#)
    }

    @Test("json(JSONValue) writes sorted keys and unescaped slashes")
    func jsonValue() {
        let value: JSONValue = ["z": 1, "a": ["b": true, "a": nil], "m": [1.5, "x/y"]]
        let body = CourierRequestBody.json(value)
        #expect(UnitSupport.text(of: body) == #"{"a":{"a":null,"b":true},"m":[1.5,"x/y"],"z":1}"#)
        #expect(body.contentType == "application/json")
    }

    @Test(
        "json(JSONValue) writes non-finite doubles as null",
        arguments: [Double.nan, .infinity, -.infinity]
    )
    func jsonNonFinite(number: Double) {
        let body = CourierRequestBody.json(["n": .double(number), "list": [.double(number), 2]])
        #expect(UnitSupport.text(of: body) == #"{"list":[null,2],"n":null}"#)
    }

    @Test("json(JSONValue) scalars at the top level")
    func jsonScalars() {
        #expect(UnitSupport.text(of: CourierRequestBody.json(JSONValue.null)) == "null")
        #expect(UnitSupport.text(of: CourierRequestBody.json(JSONValue.string("é"))) == "\"é\"")
        #expect(UnitSupport.text(of: CourierRequestBody.json(JSONValue.double(.nan))) == "null")
    }

    @Test("A JSON encoding failure becomes invalidBody with the underlying error")
    func jsonFailure() throws {
        let error = try #require(UnitSupport.error { try CourierRequestBody.json(Unencodable()) })
        #expect(error.kind == .invalidBody)
        #expect(error.underlyingError is Unencodable.Failure)
        #expect(error.message.contains("Unencodable"))
    }

    @Test("A non-finite Double in an Encodable fails with invalidBody under the default encoder")
    func jsonEncodableNonFinite() throws {
        struct Holder: Encodable { var value: Double }
        let error = try #require(UnitSupport.error { try CourierRequestBody.json(Holder(value: .infinity)) })
        #expect(error.kind == .invalidBody)
        #expect(error.underlyingError is EncodingError)
    }

    // MARK: Property lists

    @Test("An XML property list starts with <?xml and decodes back")
    func propertyListXML() throws {
        let user = BodyUser(name: "Ada", age: 36, email: nil)
        let body = try CourierRequestBody.propertyList(user)
        let bytes = try #require(body.bytes)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("<?xml"))
        #expect(body.contentType == "application/x-plist")
        #expect(body.length == Int64(bytes.count))
        #expect(try PropertyListDecoder().decode(BodyUser.self, from: bytes) == user)
    }

    @Test("A binary property list starts with bplist00 and decodes back")
    func propertyListBinary() throws {
        let user = BodyUser(name: "Ada", age: 36, email: "ada@example.com")
        let body = try CourierRequestBody.propertyList(user, format: .binary)
        let bytes = try #require(body.bytes)
        #expect(bytes.prefix(8) == Data("bplist00".utf8))
        #expect(body.contentType == "application/x-plist")
        #expect(try PropertyListDecoder().decode(BodyUser.self, from: bytes) == user)
    }

    @Test("A property-list encoding failure becomes invalidBody")
    func propertyListFailure() throws {
        let error = try #require(UnitSupport.error { try CourierRequestBody.propertyList(Unencodable()) })
        #expect(error.kind == .invalidBody)
        #expect(error.underlyingError != nil)
        #expect(error.message.contains("Unencodable"))
    }

    // MARK: encoding(_:as:)

    @Test("encoding(as: .json) writes the parameters as sorted JSON")
    func encodingJSON() throws {
        let body = try CourierRequestBody.encoding(["b": [1, 2], "a": ["y": nil, "x": true], "c": "s"], as: .json)
        #expect(UnitSupport.text(of: body) == #"{"a":{"x":true,"y":null},"b":[1,2],"c":"s"}"#)
        #expect(body.contentType == "application/json")
    }

    @Test("encoding(as: .form) is the bracket convention")
    func encodingForm() throws {
        let body = try CourierRequestBody.encoding(["b": [1, 2], "a": "x y"], as: .form)
        #expect(UnitSupport.text(of: body) == "a=x+y&b%5B%5D=1&b%5B%5D=2")
        #expect(body.contentType == "application/x-www-form-urlencoded")
    }

    @Test("encoding(as: .propertyList(.xml)) writes a dictionary that reads back")
    func encodingPropertyListXML() throws {
        let body = try CourierRequestBody.encoding(["name": "Ada", "age": 36, "tags": ["a", "b"], "admin": true], as: .propertyList(.xml))
        let bytes = try #require(body.bytes)
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("<?xml"))
        #expect(body.contentType == "application/x-plist")
        let root = try #require(try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any])
        #expect(root["name"] as? String == "Ada")
        #expect(root["age"] as? Int == 36)
        #expect(root["tags"] as? [String] == ["a", "b"])
        #expect(root["admin"] as? Bool == true)
    }

    @Test("encoding(as: .propertyList(.binary)) starts with bplist00")
    func encodingPropertyListBinary() throws {
        let body = try CourierRequestBody.encoding(["k": "v"], as: .propertyList(.binary))
        #expect(try #require(body.bytes).prefix(8) == Data("bplist00".utf8))
    }

    @Test(
        "A null anywhere in property-list parameters is refused with invalidBody",
        arguments: [
            ["n": nil] as CourierParameters,
            ["list": [1, nil]],
            ["outer": ["inner": nil]],
        ]
    )
    func propertyListNull(parameters: CourierParameters) throws {
        for format in [PropertyListFormat.xml, .binary] {
            let error = try #require(UnitSupport.error { try CourierRequestBody.encoding(parameters, as: .propertyList(format)) })
            #expect(error.kind == .invalidBody)
            #expect(error.message.contains("null"))
        }
    }
}
