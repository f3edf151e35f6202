import Foundation
import HTTPTypes
import PropertyBased
import Testing

@testable import Courier

/// Conversions to and from swift-http-types keep every value the other side can hold, and
/// throw for the rest instead of changing it.
@Suite("swift-http-types conversions")
struct HTTPTypesConversionTests {
    @Test(arguments: ["GET", "POST", "PROPFIND", "M-SEARCH", "get"])
    func methodsRoundTrip(name: String) throws {
        let method = try #require(HTTPTypes.HTTPRequest.Method(CourierHTTPMethod(name)))
        #expect(method.rawValue == name)
        #expect(CourierHTTPMethod(method) == CourierHTTPMethod(name))
    }

    @Test(arguments: ["BAD METHOD", "", "GET\r\n", "(GET)"])
    func methodsThatAreNotTokensHaveNoForm(name: String) {
        #expect(HTTPTypes.HTTPRequest.Method(CourierHTTPMethod(name)) == nil)
    }

    @Test func headersKeepTheirOrderNamesAndRepeatsAndLoseOnlyTheSpaceAroundValues() throws {
        let headers: Headers = Headers([("X-Case", "v"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2"), ("Accept", " text/html\t"), ("X-Latin", "caf\u{E9}")])
        let fields = try HTTPFields(headers)
        #expect(fields.map(\.name.rawName) == ["X-Case", "set-cookie", "Set-Cookie", "Accept", "X-Latin"])
        #expect(fields[values: .setCookie] == ["a=1", "b=2"])
        let back = Headers(fields)
        #expect(Array(back) == Array(Headers([("X-Case", "v"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2"), ("Accept", "text/html"), ("X-Latin", "caf\u{E9}")])))
    }

    @Test(arguments: [("Bad Name", "v"), ("", "v"), ("X-Colon:", "v"), ("X-Ok", "a\u{1}b"), ("X-Ok", "a\r\nInjected: 1"), ("X-Ok", "nul\u{0}")])
    func headersSwiftHTTPTypesWouldChangeAreRefused(name: String, value: String) {
        #expect(throws: CourierError.self) { try HTTPFields(Headers([(name, value)])) }
        do {
            _ = try HTTPFields(Headers([(name, value)]))
        } catch {
            #expect(error.kind == .invalidHeader)
        }
    }

    @Test(arguments: [
        ("https://user:secret@example.com:8443/a%20b/c?x=1&y=%2F#part", "https", "example.com:8443", "/a%20b/c?x=1&y=%2F", "https://example.com:8443/a%20b/c?x=1&y=%2F"),
        ("http://example.com", "http", "example.com", "/", "http://example.com/"),
        ("HTTP://Example.com/?", "http", "Example.com", "/?", "http://Example.com/?"),
        ("http://[::1]:8080/x", "http", "[::1]:8080", "/x", "http://[::1]:8080/x"),
        ("http://b%C3%BCcher.example/caf%C3%A9", "http", "b%C3%BCcher.example", "/caf%C3%A9", "http://b%C3%BCcher.example/caf%C3%A9"),
    ])
    func requestsKeepTheirTarget(url: String, scheme: String, authority: String, path: String, back: String) throws {
        let request = Courier.CourierHTTPRequest(method: .post, url: URL(string: url)!, headers: ["Content-Type": "text/plain"])
        let converted = try HTTPTypes.HTTPRequest(request)
        #expect(converted.method == .post)
        #expect(converted.scheme == scheme)
        #expect(converted.authority == authority)
        #expect(converted.path == path)
        #expect(converted.headerFields[.contentType] == "text/plain")
        let returned = try Courier.CourierHTTPRequest(converted, body: .text("hi"))
        #expect(returned.url.absoluteString == back)
        #expect(returned.method == .post)
        #expect(returned.headers["Content-Type"] == "text/plain")
        #expect(returned.body != nil)
    }

    @Test func requestsWithoutAnHTTPTargetAreRefused() throws {
        for url in ["ftp://example.com/file", "file:///etc/passwd", "mailto:someone@example.com"] {
            let request = Courier.CourierHTTPRequest(method: .get, url: URL(string: url)!)
            #expect(throws: CourierError.self, "\(url)") { try HTTPTypes.HTTPRequest(request) }
        }
        let options = HTTPTypes.HTTPRequest(method: .options, scheme: "https", authority: nil, path: "*")
        #expect(throws: CourierError.self) { try Courier.CourierHTTPRequest(options) }
        let other = HTTPTypes.HTTPRequest(method: .get, scheme: "ws", authority: "example.com", path: "/")
        #expect(throws: CourierError.self) { try Courier.CourierHTTPRequest(other) }
    }

    @Test func responsesKeepStatusReasonAndFields() throws {
        let response = CourierResponse(status: 299, reasonPhrase: "Custom", headers: ["ETag": "\"v1\"", "Vary": "Accept"], body: Data("x".utf8), url: URL(string: "http://example.com/")!)
        let converted = try HTTPResponse(response)
        #expect(converted.status.code == 299 && converted.status.reasonPhrase == "Custom")
        #expect(converted.headerFields[.eTag] == "\"v1\"")
        let back = CourierResponse(converted, body: response.body, url: response.url)
        #expect(back.status == 299 && back.reasonPhrase == "Custom")
        #expect(Array(back.headers) == Array(response.headers))
        #expect(back.body == response.body)
    }

    @Test(arguments: [-1, 1000, Int.max, Int.min])
    func aStatusOutsideWhatSwiftHTTPTypesHoldsIsRefusedNotTrapped(status: Int) {
        let response = CourierResponse(status: status, url: URL(string: "http://example.com/")!)
        #expect(throws: CourierError.self) { try HTTPResponse(response) }
    }

    @Test("any header name and value: converted and back unchanged but for the space around the value, or refused")
    func anyHeader() async {
        let samples = ["X-Ok", "Bad Name", "a\r\nb", " ", "\t", "caf\u{E9}", "\u{0}", "x\u{7F}", "\u{202E}"]
        await propertyCheck(count: Property.cases(2000), input: Property.hostile(samples, favouring: "aZ-: \t\r\n\u{0}"), Property.unicode()) { name, value in
            let headers = Headers([(name, value)])
            do {
                let back = Headers(try HTTPFields(headers))
                #expect(Array(back).map(\.name) == [name])
                #expect(Array(back).map(\.value) == [value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))])
            } catch {
                #expect((error as? CourierError)?.kind == .invalidHeader)
            }
        }
    }
}
