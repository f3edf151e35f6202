import Foundation
import Testing

@testable import courier

@Suite("HTTPie shorthand: reading the command line")
struct ShorthandTests {
    private let commands: Set<String> = ["fetch", "download", "help"]

    @Test(arguments: [
        (["https://x.example/a"], ["fetch", "https://x.example/a"]),
        (["HTTP://x.example"], ["fetch", "HTTP://x.example"]),
        ([":3000/path"], ["fetch", "http://localhost:3000/path"]),
        ([":/path?q=1"], ["fetch", "http://localhost/path?q=1"]),
        ([":"], ["fetch", "http://localhost"]),
        (["localhost:8080/x"], ["fetch", "http://localhost:8080/x"]),
        (["localhost"], ["fetch", "http://localhost"]),
        (["host.example/path", "-i"], ["fetch", "http://host.example/path", "-i"]),
        (["127.0.0.1:9/x"], ["fetch", "http://127.0.0.1:9/x"]),
        (["POST", "host.example", "a=1", "--form", "-f"], ["fetch", "--method", "POST", "http://host.example", "a=1", "--form-items", "--form-items"]),
        (["PROPFIND", ":8080"], ["fetch", "--method", "PROPFIND", "http://localhost:8080"]),
        (["host.example", "--json", "--", "--form"], ["fetch", "http://host.example", "--json-items", "--", "--form"]),
        (["fetch", "host.example", "--form", "a=b"], ["fetch", "host.example", "--form", "a=b"]),
        (["--help"], ["--help"]),
        ([], []),
    ])
    func commandLinesAreRead(arguments: [String], expected: [String]) throws {
        let reading = try Shorthand.read(arguments, commands: commands)
        #expect(reading.arguments == expected)
        #expect(reading.hint == nil)
    }

    @Test(arguments: ["foo", "Fetch", "ftp://x.example", ":abc", "host", "x.-y", "host.example:", "host.example:123456", "a..b/x", "user@host.example"])
    func otherFirstWordsKeepTheirErrorWithAHint(first: String) throws {
        let reading = try Shorthand.read([first, "x"], commands: commands)
        #expect(reading.arguments == [first, "x"])
        #expect(reading.hint?.contains("METHOD URL") == true)
        #expect(reading.hint?.contains("courier --help") == true)
    }

    @Test(arguments: [["POST"], ["POST", "nowhere"], ["GET", "-i"]])
    func aMethodNeedsAURL(arguments: [String]) {
        #expect {
            try Shorthand.read(arguments, commands: commands)
        } throws: { error in
            (error as? CommandFailure)?.status == .invalidInput && (error as? CommandFailure)?.message.contains("must be followed by a URL") == true
        }
    }
}
