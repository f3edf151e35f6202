import Foundation
import Testing

@testable import Courier

private struct PlainValidationError: Error, CustomStringConvertible {
    var description: String { "the signature is wrong" }
}

@Suite("ResponseValidator")
struct ValidatorTests {
    private func json(_ text: String, status: Int = 200) -> CourierResponse {
        UnitSupport.response(status: status, contentType: "application/json", text: text)
    }

    private func failure(_ validator: ResponseValidator, _ response: CourierResponse) -> CourierError? {
        UnitSupport.error { try validator.validate(response) }
    }

    // MARK: Status codes

    @Test("statusCode(range) passes inside the range", arguments: [200, 201, 204, 299])
    func statusRangePass(status: Int) {
        #expect(failure(.statusCode(200..<300), UnitSupport.response(status: status)) == nil)
    }

    @Test("statusCode(range) fails outside the range and keeps the response", arguments: [199, 300, 304, 404, 500])
    func statusRangeFail(status: Int) throws {
        let response = UnitSupport.response(status: status)
        let error = try #require(failure(.statusCode(200..<300), response))
        #expect(error.kind == .validationFailed)
        #expect(error.response?.status == status)
        #expect(error.url == response.url)
        #expect(error.message.contains("\(status)"))
        #expect(error.message.contains("200..<300"))
    }

    @Test("statusCode(set) accepts exactly the listed codes")
    func statusSet() throws {
        let validator = ResponseValidator.statusCode([200, 304])
        #expect(failure(validator, UnitSupport.response(status: 200)) == nil)
        #expect(failure(validator, UnitSupport.response(status: 304)) == nil)
        let error = try #require(failure(validator, UnitSupport.response(status: 201)))
        #expect(error.kind == .validationFailed)
        #expect(error.response?.status == 201)
        #expect(error.message.contains("200, 304"))
    }

    @Test("404 against the default 2xx range")
    func status404() throws {
        let error = try #require(failure(.statusCode(200..<300), UnitSupport.response(status: 404)))
        #expect(error.kind == .validationFailed)
        #expect(error.response?.status == 404)
    }

    // MARK: Content type

    @Test(
        "contentType passes matching media types",
        arguments: [
            (["application/json"], "application/json; charset=utf-8"),
            (["application/json"], "Application/JSON"),
            (["text/*"], "text/html"),
            (["text/*"], "text/plain; charset=us-ascii"),
            (["*/*"], "image/png"),
            (["application/xml", "application/json"], "application/json"),
            (["application/json; charset=utf-8"], "application/json"),
        ]
    )
    func contentTypePass(accepted: [String], contentType: String) {
        let response = UnitSupport.response(contentType: contentType, text: "x")
        #expect(failure(.contentType(accepted), response) == nil)
    }

    @Test(
        "contentType rejects other media types",
        arguments: [
            (["application/json"], "text/html"),
            (["text/*"], "application/json"),
            (["application/json"], "application/json-patch+json"),
            (["application/*"], "text/application"),
        ]
    )
    func contentTypeFail(accepted: [String], contentType: String) throws {
        let error = try #require(failure(.contentType(accepted), UnitSupport.response(contentType: contentType, text: "x")))
        #expect(error.kind == .validationFailed)
        #expect(error.response != nil)
    }

    @Test("An empty body without Content-Type passes; a body without one fails")
    func contentTypeMissing() throws {
        let validator = ResponseValidator.contentType(["application/json"])
        #expect(failure(validator, UnitSupport.response(status: 204)) == nil)
        let error = try #require(failure(validator, UnitSupport.response(contentType: nil, text: "{}")))
        #expect(error.kind == .validationFailed)
        #expect(error.message.contains("application/json"))
    }

    // MARK: JSON templates

    private static let userTemplate: JSONTemplate = .object([
        "user": .object(["id": .integer, "name": .string, "admin": .bool]),
        "items": .array(of: .object(["name": .string, "price": .number])),
        "nickname": .optional(.string),
        "note": .null,
        "extra": .any,
    ])

    @Test("A matching document passes, extra keys are allowed")
    func jsonMatch() {
        let body = #"{"user":{"id":1,"name":"Ada","admin":false,"more":1},"items":[{"name":"a","price":1.5},{"name":"b","price":2}],"note":null,"extra":[1,"x"]}"#
        #expect(failure(.json(Self.userTemplate), json(body)) == nil)
    }

    @Test(
        "Mismatches name the JSON path",
        arguments: [
            (#"{"user":{"name":"Ada","admin":true},"items":[],"note":null,"extra":1}"#, "$.user.id is missing"),
            (#"{"user":{"id":"1","name":"Ada","admin":true},"items":[],"note":null,"extra":1}"#, "$.user.id should be an integer but is string"),
            (#"{"user":{"id":1.5,"name":"Ada","admin":true},"items":[],"note":null,"extra":1}"#, "$.user.id should be an integer but is number"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":[{"name":"a","price":1},{"price":2}],"note":null,"extra":1}"#, "$.items[1].name is missing"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":[{"name":"a","price":1},{"name":7,"price":2}],"note":null,"extra":1}"#, "$.items[1].name should be a string but is number"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":{},"note":null,"extra":1}"#, "$.items should be an array but is object"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":[],"nickname":3,"note":null,"extra":1}"#, "$.nickname should be a string but is number"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":[],"note":0,"extra":1}"#, "$.note should be null but is number"),
            (#"{"user":{"id":1,"name":"Ada","admin":true},"items":[],"note":null}"#, "$.extra is missing"),
            (#"[1,2]"#, "$ should be an object but is array"),
        ]
    )
    func jsonMismatch(body: String, expected: String) throws {
        let error = try #require(failure(.json(Self.userTemplate), json(body)))
        #expect(error.kind == .validationFailed)
        #expect(error.message.contains(expected), "message: \(error.message)")
        #expect(error.response?.body == Data(body.utf8))
    }

    @Test("optional accepts absent and null")
    func optional() {
        let validator = ResponseValidator.json(.object(["nick": .optional(.string)]))
        #expect(failure(validator, json(#"{}"#)) == nil)
        #expect(failure(validator, json(#"{"nick":null}"#)) == nil)
        #expect(failure(validator, json(#"{"nick":"x"}"#)) == nil)
        #expect(failure(validator, json(#"{"nick":false}"#)) != nil)
    }

    @Test("oneOf accepts any listed shape")
    func oneOf() throws {
        let validator = ResponseValidator.json(.object(["id": .oneOf([.integer, .string])]))
        #expect(failure(validator, json(#"{"id":5}"#)) == nil)
        #expect(failure(validator, json(#"{"id":"five"}"#)) == nil)
        let error = try #require(failure(validator, json(#"{"id":true}"#)))
        #expect(error.message.contains("$.id matches none of the allowed shapes (found boolean)"))
    }

    @Test(
        "integer accepts integral numbers only; number accepts both",
        arguments: [("1", true, true), ("-3", true, true), ("1.0", true, true), ("1.5", false, true), ("1e2", true, true), ("\"1\"", false, false)]
    )
    func integerVersusNumber(literal: String, isInteger: Bool, isNumber: Bool) {
        #expect((failure(.json(.integer), json(literal)) == nil) == isInteger)
        #expect((failure(.json(.number), json(literal)) == nil) == isNumber)
    }

    @Test("Template mismatch directly, with a custom root path")
    func mismatchDirect() {
        let template: JSONTemplate = .array(of: .array(of: .bool))
        #expect(template.mismatch(in: [[true], [false, true]], path: "$") == nil)
        #expect(template.mismatch(in: [[true], [false, 1]], path: "body") == "body[1][1] should be a boolean but is number")
        #expect(template.mismatch(in: nil, path: "$") == "$ is missing")
        #expect(JSONTemplate.any.mismatch(in: .null, path: "$") == nil)
        #expect(JSONTemplate.optional(.string).mismatch(in: nil, path: "$") == nil)
    }

    @Test("A JSON validator on a body that is not JSON fails as validationFailed with the response")
    func jsonOnInvalidBody() throws {
        let error = try #require(failure(.json(.any), UnitSupport.response(contentType: "text/html", text: "<html>")))
        #expect(error.kind == .validationFailed)
        #expect(error.response?.status == 200)
    }

    // MARK: Custom validators

    @Test("A custom validator's plain error is wrapped as validationFailed")
    func customWrapped() throws {
        let validator = ResponseValidator(name: "signature") { _ in throw PlainValidationError() }
        let response = UnitSupport.response(status: 200)
        let error = try #require(failure(validator, response))
        #expect(error.kind == .validationFailed)
        #expect(error.underlyingError is PlainValidationError)
        #expect(error.response?.status == 200)
        #expect(error.url == response.url)
        #expect(error.message.contains("signature"))
        #expect(error.message.contains("the signature is wrong"))
        #expect(validator.name == "signature")
    }

    @Test("A custom validator that passes")
    func customPasses() {
        let validator = ResponseValidator(name: "has body") { response in
            if response.body.isEmpty { throw PlainValidationError() }
        }
        #expect(failure(validator, UnitSupport.response(contentType: nil, text: "x")) == nil)
        #expect(failure(validator, UnitSupport.response()) != nil)
    }

    @Test("A CourierError thrown by a custom validator passes through unchanged")
    func customCourierError() throws {
        let validator = ResponseValidator(name: "c") { _ in throw CourierError(.validationFailed, "custom message") }
        let error = try #require(failure(validator, UnitSupport.response()))
        #expect(error.kind == .validationFailed)
        #expect(error.message == "custom message")
    }
}
