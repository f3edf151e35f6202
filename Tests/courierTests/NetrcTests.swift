import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// The entry `text` gives `host`, as (login, password).
private func lookUp(_ text: String, host: String, login: String? = nil) throws -> [String?]? {
    let entry = try Netrc(Array(text.utf8)).entry(forHost: host, login: login)
    return entry.map { [$0.login, $0.password] }
}

/// Runs `body` with a scratch folder holding a netrc file of `text`, and a test server.
private func withNetrc(_ text: String, _ body: (String, TestServer) async throws -> Void) async throws {
    let folder = try scratchFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent(".netrc")
    try Data(text.utf8).write(to: file)
    try await withServer { server in try await body(file.path, server) }
}

@Suite("netrc files")
struct NetrcParsingTests {
    @Test(
        "entries are found wherever their words are",
        arguments: [
            ("machine example.com login ada password s3cret", ["ada", "s3cret"]),
            ("machine example.com\n  login ada\n  password s3cret\n", ["ada", "s3cret"]),
            ("machine other login x password y\nmachine EXAMPLE.com login ada password s3cret", ["ada", "s3cret"]),
            ("machine example.com login ada password \"with space \\\"and\\\" \\\\ \\t\"", ["ada", "with space \"and\" \\ \t"]),
            ("# a comment\nmachine example.com login ada # the user\npassword s3cret", ["ada", "s3cret"]),
            ("macdef init\ncd /\nmachine example.com login no password no\n\nmachine example.com login ada password pw", ["ada", "pw"]),
            ("machine other login x password y\ndefault login anon password guest", ["anon", "guest"]),
            ("machine example.com login ada account acct password pw", ["ada", "pw"]),
            ("machine example.com login ada", ["ada", nil]),
        ] as [(String, [String?])])
    func entries(_ text: String, _ expected: [String?]) throws {
        #expect(try lookUp(text, host: "example.com") == expected)
    }

    @Test func noEntryForAnotherHostWithoutDefault() throws {
        #expect(try lookUp("machine other.com login x password y", host: "example.com") == nil)
        #expect(try lookUp("", host: "example.com") == nil)
    }

    @Test func theLoginGivenPicksTheEntry() throws {
        let text = "machine example.com login ada password one\nmachine example.com login bob password two"
        #expect(try lookUp(text, host: "example.com", login: "bob") == ["bob", "two"])
        #expect(try lookUp(text, host: "example.com", login: "eve") == nil)
    }

    @Test(arguments: ["machine example.com login ada password \"open", "machine", "machine example.com login"])
    func malformedFilesAreErrors(_ text: String) {
        #expect(throws: Netrc.ParseError.self) { try Netrc(Array(text.utf8)) }
    }

    @Test func anyBytesReadWithoutTrapping() {
        let alphabet = Array("machine default login password macdef account \"\\#\n\t ab".utf8) + [0, 0xFF, 0x0D]
        // A fixed linear congruential sequence: the same inputs every run.
        var state: UInt64 = 0x6E65_7472_6300
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<5000 {
            let bytes = (0..<next(81)).map { _ in alphabet[next(alphabet.count)] }
            guard let netrc = try? Netrc(bytes) else { continue }
            #expect(netrc.entries.count <= bytes.count)
            let found = netrc.entry(forHost: "a")
            #expect(found == nil || found?.machine == nil || found?.machine?.lowercased() == "a")
        }
    }
}

@Suite("courier --netrc, --netrc-optional and --netrc-file")
struct NetrcCommandTests {
    @Test func theFileGivesTheCredentialForTheHost() async throws {
        try await withNetrc("machine 127.0.0.1\nlogin ada\npassword \"p w\"\n") { netrc, server in
            let run = await courier("fetch", server.url("/basic-auth/ada/p%20w").absoluteString, "--netrc-file", netrc)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\"authenticated\""))
            #expect(server.credentialedRequests(under: "/basic-auth") == 1)
        }
    }

    @Test func netrcReadsTheHomeFolder() async throws {
        try await withNetrc("default login ada password pw") { netrc, server in
            let home = URL(fileURLWithPath: netrc).deletingLastPathComponent().path
            let run = await CourierCLI.$environment.withValue(["HOME": home]) {
                await courier("download", server.url("/basic-auth/ada/pw").absoluteString, "--netrc", "-o", home + "/out.json", "-s")
            }
            #expect(run.status == 0, "\(run.stderr)")
            let body = try String(contentsOfFile: home + "/out.json", encoding: .utf8)
            #expect(body.contains("\"authenticated\""))
        }
    }

    @Test func aMissingFileIsAnErrorForNetrcOnly() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let url = server.url("/basic-auth/ada/pw").absoluteString
            let required = await CourierCLI.$environment.withValue(["HOME": folder.path]) { await courier("fetch", url, "--netrc") }
            #expect(required.status == 2)
            #expect(required.stderr == "courier: --netrc: \(folder.path)/.netrc does not exist; create it, or give --netrc-optional to go on without it\n")
            let named = await courier("fetch", url, "--netrc-file", folder.path + "/none")
            #expect(named.status == 2 && named.stderr.contains("--netrc-file"))
            #expect(server.receivedRequests.isEmpty)
            let optional = await courier("fetch", url, "--netrc-file", folder.path + "/none", "--netrc-optional", "--report", "json")
            #expect(optional.status == 0, "\(optional.stderr)")
            let status = try report(optional.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
            #expect(status == 401)
        }
    }

    @Test func userWinsOverTheFile() async throws {
        try await withNetrc("machine 127.0.0.1 login ada password wrong") { netrc, server in
            let run = await courier("fetch", server.url("/basic-auth/ada/right").absoluteString, "--netrc-file", netrc, "-u", "ada:right")
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    @Test func aUserWithoutPasswordTakesItFromTheFileWithoutAsking() async throws {
        try await withNetrc("machine 127.0.0.1 login bob password no\nmachine 127.0.0.1 login ada password pw") { netrc, server in
            let run = await PasswordPrompt.$ask.withValue({ _ in
                Issue.record("asked for a password"); return nil
            }) {
                await courier("fetch", server.url("/basic-auth/ada/pw").absoluteString, "--netrc-file", netrc, "-u", "ada")
            }
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    @Test func theCredentialStaysOnTheHostsOrigin() async throws {
        try await withNetrc("default login ada password pw") { netrc, server in
            try await withServer { other in
                let target = other.url("/basic-auth/ada/pw").absoluteString
                let location = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let run = await courier("fetch", server.url("/redirect-to?url=\(location)").absoluteString, "--netrc-file", netrc, "--report", "json")
                #expect(run.status == 0, "\(run.stderr)")
                let status = try report(run.stdout.trimmingCharacters(in: .newlines))["status"] as? Int
                #expect(status == 401)
                #expect(other.credentialedRequests(under: "/") == 0)
            }
        }
    }

    @Test func aBrokenFileIsInvalidInput() async throws {
        try await withNetrc("machine 127.0.0.1 login ada password \"open") { netrc, server in
            let run = await courier("fetch", server.url("/get").absoluteString, "--netrc-file", netrc)
            #expect(run.status == 2)
            #expect(run.stderr.contains("is not a netrc file"))
            #expect(!run.stderr.contains("open"))
            #expect(server.receivedRequests.isEmpty)
        }
    }
}
