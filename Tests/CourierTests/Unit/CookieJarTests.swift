import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import Courier

@Suite("Cookie jar: parsing, dates and files")
struct CookieJarTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00:00 UTC

    @Test(arguments: [
        ("Wed, 09 Jun 2027 10:18:14 GMT", 1_812_536_294.0),
        ("Wednesday, 09-Jun-27 10:18:14 GMT", 1_812_536_294.0),
        ("Wed Jun  9 10:18:14 2027", 1_812_536_294.0),
        ("9 june 2027 10:18:14", 1_812_536_294.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
    ])
    func lenientDates(_ text: String, _ seconds: TimeInterval) {
        #expect(CookieDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: ["", "tomorrow", "Wed, 31 Feb 2027 10:18:14 GMT", "Wed, 09 Jun 1600 10:18:14 GMT", "Wed, 09 Jun 2027 24:00:00 GMT", "09 Jun 2027"])
    func invalidDates(_ text: String) {
        #expect(CookieDate.parse(text) == nil)
    }

    @Test func attributesAreReadWhateverTheirCase() throws {
        let set = try #require(SetCookie("id=a3fWa; Expires=Wed, 09 Jun 2027 10:18:14 GMT; max-age=60; DOMAIN=.Example.COM; path=/docs; SECURE; httponly; SameSite=Lax"))
        #expect(set.name == "id")
        #expect(set.value == "a3fWa")
        #expect(set.maxAge == 60)
        #expect(set.expires == Date(timeIntervalSince1970: 1_812_536_294))
        #expect(set.domain == "example.com")
        #expect(set.path == "/docs")
        #expect(set.isSecure && set.isHTTPOnly)
        #expect(set.sameSite == .lax)
    }

    @Test func httpOnlyAndSameSiteAreStored() throws {
        let jar = CookieJar(now: { CookieJarTests.start })
        jar.store(setCookie: "s=1; HttpOnly; SameSite=Strict", from: URL(string: "https://example.com/")!)
        jar.store(setCookie: "t=2; SameSite=unknown", from: URL(string: "https://example.com/")!)
        let cookies = jar.allCookies
        #expect(cookies.map(\.name) == ["s", "t"])
        #expect(cookies[0].isHTTPOnly && cookies[0].sameSite == .strict && cookies[0].isHostOnly)
        #expect(cookies[1].sameSite == nil)
        #expect(!cookies[0].isPersistent)
    }

    @Test func controlCharactersAndHugeCookiesAreRefused() {
        #expect(SetCookie("a=1\u{7F}") == nil)
        #expect(SetCookie("a=" + String(repeating: "x", count: 5000)) == nil)
    }

    @Test func savedFileRoundTripsPersistentCookiesWithMode0600() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("jar.json")
        let clock = NIOLockedValueBox(CookieJarTests.start)
        let now: @Sendable () -> Date = { clock.withLockedValue { $0 } }

        let jar = try CookieJar(file: file, now: now)
        #expect(jar.allCookies.isEmpty)
        let url = URL(string: "https://www.example.com/app/")!
        jar.store(setCookie: "session=s1", from: url)
        jar.store(setCookie: "id=42; Max-Age=3600; Domain=example.com; Path=/; Secure; HttpOnly; SameSite=None", from: url)
        jar.store(setCookie: "short=1; Max-Age=10", from: url)
        try jar.save()

        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("s1"), "session cookies are not saved")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["jar.json"])

        clock.withLockedValue { $0 += 60 }
        let reloaded = try CookieJar(file: file, now: now)
        let cookies = reloaded.allCookies
        #expect(cookies.map(\.name) == ["id"])
        let id = try #require(cookies.first)
        #expect(id.domain == "example.com" && !id.isHostOnly && id.isSecure && id.isHTTPOnly && id.sameSite == CourierCookie.SameSite.none)
        #expect(id.created == CookieJarTests.start)
        #expect(reloaded.cookieHeader(for: URL(string: "https://shop.example.com/")!) == "id=42")

        // Saving again replaces the file atomically and keeps its mode.
        reloaded.removeAll()
        try reloaded.save()
        #expect(try CookieJar(file: file, now: now).allCookies.isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func unreadableFilesFailWithCookieStorage() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-not-cookies-\(UUID().uuidString).json")
        try Data("not json".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = UnitSupport.error { try CookieJar(file: file) }
        #expect(error?.kind == .cookieStorage)
        let unsaved = UnitSupport.error { try CookieJar().save() }
        #expect(unsaved?.kind == .cookieStorage)
        let missingFolder = UnitSupport.error { try CookieJar().save(to: URL(fileURLWithPath: "/nonexistent-courier-folder/jar.json")) }
        #expect(missingFolder?.kind == .cookieStorage)
    }
}
