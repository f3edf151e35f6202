import Foundation
import Testing

@testable import Courier

@Suite("Cookie jar: the Netscape cookie file")
struct NetscapeCookieFormatTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00:00 UTC

    /// The one cookie `line` holds, or `nil`.
    static func cookie(_ line: String) -> CourierCookie? {
        let cookies = NetscapeCookieFormat.cookies(in: Data(line.utf8), now: now)
        #expect(cookies.count <= 1)
        return cookies.first
    }

    @Test func fieldsAreRead() throws {
        let cookie = try #require(Self.cookie("#HttpOnly_.Example.COM\tTRUE\t/docs\tTRUE\t1830297600\tsid\tv=1"))
        #expect(cookie.domain == "example.com" && !cookie.isHostOnly)
        #expect(cookie.path == "/docs" && cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_830_297_600))
        #expect(cookie.name == "sid" && cookie.value == "v=1")
        let session = try #require(Self.cookie("example.com\tfalse\t/\tfalse\t0\tempty\r"))
        #expect(session.isHostOnly && !session.isPersistent && session.value == "" && !session.isHTTPOnly)
        let far = try #require(Self.cookie("example.com\tFALSE\t/\tFALSE\t123456789012345678901234567890\tfar\t1"))
        #expect(far.expires == Date(timeIntervalSince1970: 253_402_300_799))
        let address = try #require(Self.cookie("[::1]\tTRUE\t/\tFALSE\t0\tv6\t1"))
        #expect(address.domain == "::1" && address.isHostOnly)
    }

    @Test(
        "a line that is not a cookie is skipped",
        arguments: [
            "", "   ", "# a comment\tFALSE\t/\tFALSE\t0\tn\tv", "example.com\tFALSE\t/\tFALSE\t0", "example.com\tFALSE\t/\tFALSE\t0\tn\tv\textra",
            "example.com\tYES\t/\tFALSE\t0\tn\tv", "example.com\tFALSE\t/\tNO\t0\tn\tv", "example.com\tFALSE\tdocs\tFALSE\t0\tn\tv",
            "example.com\tFALSE\t/\tFALSE\t-5\tn\tv", "example.com\tFALSE\t/\tFALSE\t1e9\tn\tv", "example.com\tFALSE\t/\tFALSE\t1000\texpired\tv",
            "\tFALSE\t/\tFALSE\t0\tn\tv", "exa mple.com\tFALSE\t/\tFALSE\t0\tn\tv", "example.com/x\tFALSE\t/\tFALSE\t0\tn\tv",
            "example.com\tFALSE\t/\tFALSE\t0\t\tv", "example.com\tFALSE\t/\tFALSE\t0\ta=b\tv", "example.com\tFALSE\t/\tFALSE\t0\tn\tv;w",
            "example.com\tFALSE\t/\tFALSE\t0\tn\tv\u{1B}[2J", "example.com\tFALSE\t/\tFALSE\t0\tn\u{7F}\tv",
            "example.com\tFALSE\t/\tFALSE\t0\t__Host-n\tv", "example.com\tTRUE\t/\tTRUE\t0\t__Host-n\tv",
            "example.com\tFALSE\t/\tFALSE\t0\t__Secure-n\tv", "example.com\tFALSE\t/\tFALSE\t0\tn\t" + String(repeating: "v", count: 8200),
        ])
    func skipped(_ line: String) {
        #expect(Self.cookie(line) == nil)
    }

    @Test func invalidUTF8IsSkippedAndTheOtherLinesKept() {
        var data = Data("example.com\tFALSE\t/\tFALSE\t0\tbad\t".utf8) + Data([0xC3, 0x28]) + Data("\n".utf8)
        data += Data("example.com\tFALSE\t/\tFALSE\t0\tgood\t1\n".utf8)
        #expect(NetscapeCookieFormat.cookies(in: data, now: Self.now).map(\.name) == ["good"])
    }

    @Test func aCookieWithATabIsNotWritten() {
        let cookies = [CourierCookie(name: "a", value: "x\ty", domain: "example.com"), CourierCookie(name: "b", value: "2", domain: "example.com")]
        let text = NetscapeCookieFormat.text(for: cookies)
        #expect(text.hasPrefix(NetscapeCookieFormat.header + "\n"))
        #expect(!text.contains("\ta\t"))
        #expect(text.hasSuffix("example.com\tFALSE\t/\tFALSE\t0\tb\t2\n"))
    }

    @Test func theJarSavesEveryCookieToANetscapeFileWithMode0600AndReadsItBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-netscape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("jar.txt")
        let url = URL(string: "https://www.example.com/a/b")!
        let jar = CookieJar(savingTo: file, format: .netscape, now: { Self.now })
        jar.store(setCookie: "session=1; Path=/", from: url)
        jar.store(setCookie: "kept=2; Max-Age=3600; Domain=example.com; Secure; HttpOnly", from: url)
        try jar.save()
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("www.example.com\tFALSE\t/\tFALSE\t0\tsession\t1\n"))
        #expect(text.contains("#HttpOnly_.example.com\tTRUE\t/a\tTRUE\t1767229200\tkept\t2\n"))

        let reread = CookieJar(now: { Self.now })
        try reread.addCookies(from: file)
        #expect(reread.cookieHeader(for: url) == "kept=2; session=1")
        try reread.addCookies(from: folder.appendingPathComponent("missing.txt"))
        #expect(reread.allCookies.count == 2)
        try jar.save(to: file, format: .json)
        let fromJSON = CookieJar(now: { Self.now })
        try fromJSON.addCookies(from: file)
        #expect(fromJSON.allCookies.map(\.name) == ["kept"])
    }

    @Test func addingKeepsTheJarsRules() {
        let jar = CookieJar(now: { Self.now })
        jar.add([
            CourierCookie(name: "suffix", value: "1", domain: "co.uk", isHostOnly: false),
            CourierCookie(name: "old", value: "1", domain: "example.com", expires: Self.now),
            CourierCookie(name: "__Host-x", value: "1", domain: "example.com", isSecure: false),
            CourierCookie(name: "a", value: "1", domain: "example.com", created: Self.now),
            CourierCookie(name: "a", value: "2", domain: "example.com", created: Self.now.addingTimeInterval(5)),
        ])
        #expect(jar.allCookies.map { "\($0.name)=\($0.value)" } == ["a=2"])
        #expect(jar.allCookies.first?.created == Self.now)
    }

    @Test func aFileTooLargeIsACookieStorageError() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-huge-\(UUID().uuidString).txt")
        try Data(count: CookieFile.maximumSize + 1).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let jar = CookieJar()
        let error = try #require(throws: CourierError.self) { try jar.addCookies(from: file) }
        #expect(error.kind == .cookieStorage)
    }
}
