import Foundation
import Testing

@testable import Courier

@Suite("URLBuilder")
struct URLBuilderTests {
    private func build(_ base: String?, _ path: String, _ pairs: [(String, String?)] = []) throws(CourierError) -> String {
        try URLBuilder.url(path: path, base: base.map(UnitSupport.url), queryPairs: pairs).absoluteString
    }

    // MARK: The join rule

    @Test(
        "Joining a path to the base URL",
        arguments: [
            // Base with a path, with and without trailing slash; path with and without leading slash.
            ("https://api.example.com/v1", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1", "users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "/users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1/", "users/1/posts", "https://api.example.com/v1/users/1/posts"),
            // Base without a path.
            ("https://api.example.com", "/users", "https://api.example.com/users"),
            ("https://api.example.com", "users", "https://api.example.com/users"),
            ("https://api.example.com/", "users", "https://api.example.com/users"),
            // Empty path: the base itself.
            ("https://api.example.com/v1", "", "https://api.example.com/v1"),
            ("https://api.example.com/v1/", "", "https://api.example.com/v1/"),
            // Trailing slash kept.
            ("https://api.example.com/v1", "users/", "https://api.example.com/v1/users/"),
            ("https://api.example.com/v1", "/users/", "https://api.example.com/v1/users/"),
            // Dot segments.
            ("https://api.example.com/v1", "./users", "https://api.example.com/v1/users"),
            ("https://api.example.com/v1", "users/./1", "https://api.example.com/v1/users/1"),
            ("https://api.example.com/v1", "users/../teams", "https://api.example.com/v1/teams"),
            ("https://api.example.com/v1/", "../v2/users", "https://api.example.com/v2/users"),
            ("https://api.example.com/a/b", "../../x", "https://api.example.com/x"),
            ("https://api.example.com/v1", "../../../../x", "https://api.example.com/x"),
            ("https://api.example.com", "../x", "https://api.example.com/x"),
            ("https://api.example.com/v1", "users/..", "https://api.example.com/v1/"),
            ("https://api.example.com/v1", "users/.", "https://api.example.com/v1/users/"),
            // Percent-encoded dots are data.
            ("https://api.example.com/v1", "%2E%2E/x", "https://api.example.com/v1/%2E%2E/x"),
            ("https://api.example.com/v1", "a/%2e%2E", "https://api.example.com/v1/a/%2e%2E"),
            // Queries: the base's, then the path's own.
            ("https://api.example.com/v1?key=1", "/users?page=2", "https://api.example.com/v1/users?key=1&page=2"),
            ("https://api.example.com/v1?key=1", "/users", "https://api.example.com/v1/users?key=1"),
            ("https://api.example.com/v1", "/users?page=2&sort=name", "https://api.example.com/v1/users?page=2&sort=name"),
            // Fragment kept.
            ("https://api.example.com/v1", "/doc#section-2", "https://api.example.com/v1/doc#section-2"),
            ("https://api.example.com/v1", "/doc?x=1#top", "https://api.example.com/v1/doc?x=1#top"),
            ("https://api.example.com/v1#base", "/doc", "https://api.example.com/v1/doc"),
            // Encoding of the path.
            ("https://api.example.com/v1", "/a b", "https://api.example.com/v1/a%20b"),
            ("https://api.example.com/v1", "/café", "https://api.example.com/v1/caf%C3%A9"),
            ("https://api.example.com/v1", "/😀", "https://api.example.com/v1/%F0%9F%98%80"),
            ("https://api.example.com/v1", "/a%20b", "https://api.example.com/v1/a%20b"),
            ("https://api.example.com/v1", "/a%2Fb", "https://api.example.com/v1/a%2Fb"),
            ("https://api.example.com/v1", "/100%", "https://api.example.com/v1/100%25"),
            ("https://api.example.com/v1", "/x:y@z;p=1", "https://api.example.com/v1/x:y@z;p=1"),
            ("https://api.example.com/v1", "/search?q=a b", "https://api.example.com/v1/search?q=a%20b"),
            // Ports and IPv6 hosts.
            ("http://localhost:8080", "/a", "http://localhost:8080/a"),
            ("http://localhost:8080/base/", "a", "http://localhost:8080/base/a"),
            ("http://[::1]:8080", "/a", "http://[::1]:8080/a"),
            ("http://user:pw@example.com/v1", "x", "http://user:pw@example.com/v1/x"),
        ]
    )
    func join(base: String, path: String, expected: String) throws {
        #expect(try build(base, path) == expected)
    }

    @Test(
        "Absolute URLs bypass the base",
        arguments: [
            ("http://other.example/x", "http://other.example/x"),
            ("https://other.example/x?y=1#z", "https://other.example/x?y=1#z"),
            ("HTTPS://other.example/x", "https://other.example/x"),
            ("Http://other.example", "http://other.example"),
            ("http://[::1]:8080/a", "http://[::1]:8080/a"),
            ("https://other.example:8443/a/../b", "https://other.example:8443/b"),
            ("https://other.example/a b", "https://other.example/a%20b"),
        ]
    )
    func absolute(path: String, expected: String) throws {
        #expect(try build("https://api.example.com/v1", path) == expected)
        #expect(try build(nil, path) == expected)
    }

    @Test("An absolute URL keeps its port and IPv6 host")
    func absoluteComponents() throws {
        let url = try URLBuilder.url(path: "http://[::1]:8080/a", base: nil)
        #expect(url.port == 8080)
        #expect(url.path == "/a")
        #expect(url.scheme == "http")
    }

    @Test(
        "A path starting with // takes only the base's scheme",
        arguments: [
            ("https://api.example.com/v1", "//cdn.example.com/x", "https://cdn.example.com/x"),
            ("http://api.example.com/v1?k=1", "//cdn.example.com/x?y=2", "http://cdn.example.com/x?y=2"),
        ]
    )
    func networkPath(base: String, path: String, expected: String) throws {
        #expect(try build(base, path) == expected)
    }

    @Test("Query pairs come after the base query and the path's query, in order, encoded")
    func queryPairs() throws {
        let url = try build("https://h.example/v1?a=1", "/p?b=2", [("c", "3"), ("d e", "f&g"), ("flag", nil), ("a[]", "é")])
        #expect(url == "https://h.example/v1/p?a=1&b=2&c=3&d%20e=f%26g&flag&a%5B%5D=%C3%A9")
    }

    @Test("Query pairs on a URL with no query start the query, and the fragment stays last")
    func queryPairsFragment() throws {
        #expect(try build("https://h.example", "/p#frag", [("x", "1")]) == "https://h.example/p?x=1#frag")
        #expect(try build("https://h.example", "/p?#frag", [("x", "1")]) == "https://h.example/p?x=1#frag")
    }

    @Test("The built URL parses back into the expected components")
    func components() throws {
        let url = try URLBuilder.url(path: "/users/a b", base: UnitSupport.url("https://api.example.com:8443/v1?k=1"), queryPairs: [("q", "x")])
        #expect(url.scheme == "https")
        #expect(url.host == "api.example.com")
        #expect(url.port == 8443)
        #expect(url.path == "/v1/users/a b")
        #expect(url.query == "k=1&q=x")
    }

    @Test("appendQueryItems uses the same rule")
    func appendQueryItems() throws {
        var request = CourierHTTPRequest(method: .get, url: UnitSupport.url("https://h.example/p?a=1"))
        try request.appendQueryItems([URLQueryItem(name: "b c", value: "d+e"), URLQueryItem(name: "f", value: nil)])
        #expect(request.url.absoluteString == "https://h.example/p?a=1&b%20c=d%2Be&f")
        try request.appendQueryItems([])
        #expect(request.url.absoluteString == "https://h.example/p?a=1&b%20c=d%2Be&f")
    }

    // MARK: Errors

    @Test(
        "Invalid paths are refused with invalidURL and the message quotes the input",
        arguments: [
            (String?.none, "/users"),
            (nil, "users"),
            (nil, "//cdn.example.com/x"),
            ("https://api.example.com", "ftp://x/y"),
            ("https://api.example.com", "file:///etc/passwd"),
            ("https://api.example.com", "http://"),
            ("https://api.example.com", "https://:8080/x"),
            ("https://api.example.com", "http://user@/x"),
            ("https://api.example.com", "http://user:pw@:8080/x"),
            ("https://api.example.com", "http://h.example:abc/x"),
            ("https://api.example.com", "http://h.example:99999/x"),
            ("https://api.example.com", "localhost:8080/x"),
            ("https://api.example.com", "/a\rb"),
            ("https://api.example.com", "/a\nb"),
            ("https://api.example.com", "/a\r\nHost: evil"),
            ("https://api.example.com", "/a\0b"),
            ("https://api.example.com", "/a\tb"),
            ("https://api.example.com", "/a\u{7F}"),
            ("https://api.example.com", "http://evil.example/\r\nX: y"),
            ("https://api.example.com", "mailto:x"),
        ]
    )
    func invalid(base: String?, path: String) throws {
        let error = try #require(UnitSupport.error { try build(base, path) })
        #expect(error.kind == .invalidURL)
        #expect(error.message.contains(WireValidation.quoted(path)), "message: \(error.message)")
    }

    @Test("mailto:x without a base is refused too")
    func mailtoWithoutBase() throws {
        let error = try #require(UnitSupport.error { try build(nil, "mailto:x") })
        #expect(error.kind == .invalidURL)
        #expect(error.message.contains("mailto:x"))
    }

    @Test("Control characters are shown escaped in the message")
    func controlCharactersEscaped() throws {
        let error = try #require(UnitSupport.error { try build("https://api.example.com", "/a\r\nb") })
        #expect(error.description.contains(#""/a\r\nb""#))
        #expect(!error.description.contains("\r"))
        #expect(!error.description.contains("\n"))
    }

    @Test(
        "A base URL with no scheme is refused and the message quotes the base",
        arguments: ["api.example.com/v1", "api.example.com", "/v1"]
    )
    func baseWithoutScheme(base: String) throws {
        let error = try #require(UnitSupport.error { try build(base, "/users") })
        #expect(error.kind == .invalidURL)
        #expect(error.message.contains(base))
    }

    @Test("A path of only slashes past // names an empty host and is refused")
    func tripleSlash() throws {
        let error = try #require(UnitSupport.error { try build("https://api.example.com/v1", "///users") })
        #expect(error.kind == .invalidURL)
    }

    // MARK: Pieces

    @Test(
        "hasScheme recognises an RFC 3986 scheme followed by a colon",
        arguments: [
            ("http://x", true), ("HTTPS://x", true), ("svn+ssh://x", true), ("a.b-c://x", true), ("mailto:x", true),
            ("/http://x", false), ("://x", false), ("1http://x", false), ("users", false), ("/a:b", false),
            ("é://x", false), ("a b://x", false),
        ]
    )
    func hasScheme(text: String, expected: Bool) {
        #expect(URLBuilder.hasScheme(text) == expected)
    }

    @Test(
        "removeDotSegments follows RFC 3986 §5.2.4",
        arguments: [
            ("/a/b/c/./../../g", "/a/g"),
            ("/a/b/../../../g", "/g"),
            ("/./a", "/a"),
            ("/a/.", "/a/"),
            ("/a/..", "/"),
            ("/..", "/"),
            ("/a/b", "/a/b"),
            ("/a/.b/..c/b.", "/a/.b/..c/b."),
            ("/a/%2E%2E/b", "/a/%2E%2E/b"),
            ("", ""),
        ]
    )
    func dotSegments(input: String, expected: String) {
        #expect(URLBuilder.removeDotSegments(input) == expected)
    }

    @Test("split separates prefix, path, query and fragment")
    func split() throws {
        let parts = try #require(URLBuilder.split("https://u@h.example:1/p/q?x=1?y#f#g"))
        #expect(parts.prefix == "https://u@h.example:1")
        #expect(parts.path == "/p/q")
        #expect(parts.query == "x=1?y")
        #expect(parts.fragment == "f#g")
        #expect(URLBuilder.split("no-scheme/path") == nil)
    }
}
