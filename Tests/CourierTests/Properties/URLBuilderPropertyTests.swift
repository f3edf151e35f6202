import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: the canonical-URL shortcut builds what the rule builds")
struct URLBuilderPropertyTests {
    static let bases: [String?] = [
        nil, "https://api.example.com/v1", "https://api.example.com/v1/", "http://127.0.0.1:8080", "http://h:65535/a/b/",
        "https://API.Example.com", "https://h/v1?key=1", "http://h:99999/", "http://[::1]:80/x",
    ]
    static let samples = [
        "/users/1", "users/1/posts", "http://127.0.0.1:8080/bytes/100?r=3", "https://h/a/./b", "/a/../b", "./x", "../x",
        "/p?", "/p?#f", "/p?q=1#f", "p#f?g", "http://h:/x", "HTTP://h/x", "http://h:65536/", "//h/x", "a:b", "/%41%2", "/x%zz",
        "/a b", "/é", "?q=1", "#f", "", "/", "http://u@h/x", "/a/..", "/a/.", "/..a/b.", "/a?b?c#d#e",
    ]
    static let alphabet = "/?#.%:@-_~!$&'()*+,;=aZ09 hHtps[]"

    @Test("Any path and base: where the shortcut answers, the step-by-step rule gives the same URL")
    func shortcutAgreesWithTheRule() async {
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(Self.samples, favouring: Self.alphabet)) { path in
            for base in Self.bases {
                guard let shortcut = URLBuilder.canonicalURL(path: path, baseString: base, queryPairs: []) else { continue }
                let built = try? URLBuilder.builtURL(path: path, baseString: base, queryPairs: [])
                #expect(built?.absoluteString == shortcut.absoluteString, "path \(path.debugDescription), base \(String(describing: base))")
            }
        }
    }

    @Test(
        "Common inputs take the shortcut; inputs the rule changes do not",
        arguments: [
            ("http://127.0.0.1:8080/bytes/100?r=1-2", nil, true),
            ("/users/1", "https://api.example.com/v1", true),
            ("users/1?page=2#top", "https://api.example.com/v1/", true),
            ("/users/../teams", "https://api.example.com/v1", false),
            ("/a b", "https://api.example.com", false),
            ("HTTP://h/x", nil, false),
            ("/users", "https://api.example.com/v1?key=1", false),
            ("/p?", "https://api.example.com", false),
            ("https://h/a!$&'()*+,;=:@b?c=d/e#f", nil, true),
            ("/a!$&'()*+,;=:@b", "http://h:8080/", true),
            ("httpx/y", "https://api.example.com", true),
            ("//h/x", "https://api.example.com", false),
            ("/x", "HTTPS://api.example.com", false),
        ] as [(String, String?, Bool)]
    )
    func shortcutTakesCommonInputs(path: String, base: String?, takesShortcut: Bool) throws {
        let shortcut = URLBuilder.canonicalURL(path: path, baseString: base, queryPairs: [])
        #expect((shortcut != nil) == takesShortcut)
        #expect(try URLBuilder.url(path: path, baseString: base).absoluteString == URLBuilder.builtURL(path: path, baseString: base, queryPairs: []).absoluteString)
    }
}
