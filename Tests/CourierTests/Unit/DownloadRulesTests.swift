import Foundation
import Testing

@testable import Courier

@Suite("Download rules")
struct DownloadRulesTests {
    @Test(
        "Content-Range values are parsed, malformed ones refused",
        arguments: [
            ("bytes 0-99/1000", ContentRange?.some(.init("bytes 0-99/1000")!)),
            ("bytes 100-199/*", .some(.init("bytes 100-199/*")!)),
            ("bytes */1000", .some(.init("bytes */1000")!)),
            ("bytes 5-4/10", nil),
            ("bytes 0-10/10", nil),
            ("bytes */*", nil),
            ("items 0-1/2", nil),
            ("bytes -1-2/3", nil),
        ])
    func contentRanges(value: String, expected: ContentRange?) {
        #expect(ContentRange(value) == expected)
    }

    @Test("a Content-Range's fields")
    func contentRangeFields() throws {
        let parsed = try #require(ContentRange("bytes 100-199/1000"))
        #expect(parsed.range == 100...199)
        #expect(parsed.total == 1000)
        #expect(ContentRange("bytes */1000")?.range == nil)
        #expect(ContentRange("bytes 0-1/*")?.total == nil)
    }

    private func decide(
        _ status: Int, range: String? = nil, length: Int64? = nil, offset: Int64 = 0, total: Int64? = nil
    ) -> ResumeDecision {
        ResumeDecision.evaluate(status: status, contentRange: range, contentLength: length, isEncoded: false, offset: offset, expectedTotal: total)
    }

    @Test("the answer to a resumed request decides between continuing, restarting, finishing and refusing")
    func decisions() {
        #expect(decide(200, length: 1000) == .write(offset: 0, total: 1000))
        // A 200 to a range request: the resource changed; start over from zero, never splice.
        #expect(decide(200, length: 1200, offset: 500, total: 1000) == .write(offset: 0, total: 1200))
        #expect(decide(206, range: "bytes 500-999/1000", length: 500, offset: 500, total: 1000) == .write(offset: 500, total: 1000))
        #expect(decide(206, range: "bytes 500-999/*", offset: 500, total: 1000) == .write(offset: 500, total: 1000))
        #expect(decide(416, range: "bytes */1000", offset: 1000, total: 1000) == .complete(total: 1000))
        #expect(decide(416, offset: 1000, total: 1000) == .complete(total: 1000))
        #expect(decide(416, range: "bytes */2000", offset: 1000, total: 1000) == .startOver)
        #expect(decide(416, range: "bytes */1000", offset: 0) == .startOver)
        #expect(decide(404) == .fail(status: 404))
        #expect(decide(304, offset: 10, total: 20) == .fail(status: 304))
    }

    @Test(
        "a 206 that does not continue the partial file is refused",
        arguments: [
            ("bytes 501-999/1000", Int64?.none),
            ("bytes 0-999/1000", nil),
            ("bytes 500-1000/1001", nil),
            ("bytes 500-999/1000", 400),
            ("garbage", nil),
        ])
    func lyingRanges(range: String, length: Int64?) {
        guard case .reject = decide(206, range: range, length: length, offset: 500, total: 1000) else {
            Issue.record("\(range) was accepted")
            return
        }
    }

    @Test(
        "Content-Disposition: filename* first, RFC 8187 decoding, quoted strings",
        arguments: [
            ("attachment; filename=\"report.pdf\"", "report.pdf"),
            ("attachment; filename=plain.txt", "plain.txt"),
            ("attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt", "€ rates.txt"),
            ("attachment; filename*=iso-8859-1'en'%A3%20rates.txt", "£ rates.txt"),
            ("attachment; filename=\"a \\\"quoted\\\" name.txt\"", "a \"quoted\" name.txt"),
            ("attachment; filename*=UTF-8''%FF; filename=\"safe.txt\"", "safe.txt"),
            ("inline", nil),
        ])
    func contentDisposition(value: String, expected: String?) {
        #expect(ContentDisposition.fileName(in: value) == expected)
    }

    /// Long names and what they are cut to.
    static let longNames: [(String, String?)] = {
        let x300 = String(repeating: "x", count: 300)
        let accented = String(repeating: "é", count: 200)
        let longExtension = String(repeating: "x", count: 250) + "." + String(repeating: "y", count: 40)
        return [
            (x300, String(repeating: "x", count: 255)),
            (x300 + ".tar.gz", String(repeating: "x", count: 252) + ".gz"),
            (accented + ".pdf", String(repeating: "é", count: 125) + ".pdf"),
            (longExtension, String(longExtension.prefix(255))),
            // One character of 400 bytes (combining marks with nothing to combine with): cut
            // between its scalars rather than to nothing.
            (String(repeating: "\u{301}", count: 200), String(repeating: "\u{301}", count: 127)),
        ]
    }()

    @Test(
        "server file names are cut to a safe last component of at most 255 bytes, or refused",
        arguments: [
            ("report.pdf", "report.pdf"),
            ("../../etc/passwd", "passwd"),
            ("..\\..\\windows\\system.ini", "system.ini"),
            ("/etc/shadow", "shadow"),
            ("%2e%2e%2fescape", "%2e%2e%2fescape"),
            (".bashrc", "bashrc"),
            ("...hidden", "hidden"),
            ("dir/", nil),
            ("..", nil),
            ("a\u{0}b", nil),
            ("line\nbreak", nil),
            ("bell\u{7}", nil),
            ("csi\u{9B}31m", nil),
            ("del\u{7F}", nil),
            ("evil\u{202E}gpj.exe", nil),
            ("\u{2066}isolate\u{2069}.txt", nil),
            ("mark\u{200F}.txt", nil),
            ("arabic\u{61C}.txt", nil),
            ("-rf", "rf"),
            ("--help.txt", "help.txt"),
            (".-.-x", "x"),
            ("-", nil),
            ("../-", nil),
        ] + longNames)
    func sanitizing(suggested: String, expected: String?) {
        let result = try? DownloadFileName.sanitized(suggested)
        #expect(result == expected)
        #expect((result?.utf8.count ?? 0) <= 255)
    }

    @Test("announced digests: Repr-Digest, Digest, and Content-MD5 only for a whole body")
    func digests() {
        let headers: Headers = [
            "Repr-Digest": "sha-256=:AAEC:, sha-512=:AAAA:",
            "Digest": "MD5=AQI=",
            "Content-MD5": "AwQ=",
        ]
        #expect(
            BodyDigest.announced(in: headers, isWholeFile: true) == [
                BodyDigest(algorithm: .sha256, expected: Data([0, 1, 2])),
                BodyDigest(algorithm: .md5, expected: Data([1, 2])),
                BodyDigest(algorithm: .md5, expected: Data([3, 4])),
            ])
        #expect(BodyDigest.announced(in: headers, isWholeFile: false).count == 2)
    }

    @Test("a resume record keeps the URL without its secrets and recognizes it by digest")
    func recordURL() throws {
        let signed = try #require(URL(string: "https://user:secret@files.example:8443/a/b.bin?X-Signature=abc123#part"))
        let record = ResumeRecord(for: signed, entityTag: "\"e\"", lastModified: nil, bytesReceived: 5, fileName: nil)
        #expect(record.url == "https://files.example:8443/a/b.bin")
        #expect(record.urlDigest?.count == 64)
        #expect(record.isRecord(of: signed))
        #expect(!record.isRecord(of: try #require(URL(string: "https://user:secret@files.example:8443/a/b.bin?X-Signature=abc124#part"))))
        #expect(!record.isRecord(of: try #require(URL(string: "https://files.example:8443/a/b.bin"))))
        let encoded = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(!encoded.contains("abc123") && !encoded.contains("secret"))
        // A record written before the digest holds the whole URL, and is matched by it.
        let older = ResumeRecord(url: signed.absoluteString, entityTag: "\"e\"", lastModified: nil, bytesReceived: 5)
        #expect(older.isRecord(of: signed))
        #expect(!older.isRecord(of: try #require(URL(string: "https://files.example:8443/a/b.bin"))))
    }

    @Test("a resume record prefers a strong entity-tag to the date, and refuses a weak one")
    func validators() {
        var record = ResumeRecord(url: "http://x/", entityTag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", bytesReceived: 0)
        #expect(record.validator == "\"abc\"")
        record.entityTag = "W/\"abc\""
        #expect(record.validator == "Wed, 21 Oct 2015 07:28:00 GMT")
        record.lastModified = nil
        #expect(record.validator == nil)
    }
}
