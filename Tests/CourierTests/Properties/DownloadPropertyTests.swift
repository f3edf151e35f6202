import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: Content-Disposition, download file names, Content-Range and resume records")
struct DownloadPropertyTests {
    static let dispositionSamples = [
        "attachment; filename=\"report.pdf\"", "attachment; filename*=UTF-8''na%C3%AFve%20file.txt", "inline; filename=plain.txt",
        "attachment; filename=\"a\\\"b.txt\"; filename*=iso-8859-1'en'%E9t%E9.txt", "attachment; filename=\"../../etc/passwd\"",
        "attachment;filename=\"..\";x=1", "form-data; name=\"f\"; filename=\"%2e%2e%2f\"",
    ]
    static let dispositionAlphabet = "attachment; filename*=\"\\'%UTF-8../\\ abc"

    @Test("Content-Disposition: any field value reads without trapping, and a name read is made safe or refused")
    func dispositionParsesSafely() async {
        let url = URL(string: "https://example.test/files/report.pdf")!
        await propertyCheck(count: Property.cases(2000), input: Property.hostile(Self.dispositionSamples, favouring: Self.dispositionAlphabet)) { text in
            _ = ContentDisposition.parameters(in: text)
            if let suggested = ContentDisposition.fileName(in: text) { Self.checkSanitized(suggested) }
            do {
                let name = try DownloadFileName.name(contentDisposition: text, url: url)
                Self.checkSafe(name)
            } catch {
                #expect((error as? CourierError)?.kind == .invalidDestination)
            }
        }
    }

    @Test("Content-Disposition: any file name, written quoted, as filename* in UTF-8, or both, reads back")
    func dispositionRoundTrip() async {
        await propertyCheck(count: Property.cases(2000), input: Property.unicode(), Property.unicode()) { name, other in
            let quoted = FieldPropertyTests.quoted(name)
            #expect(ContentDisposition.fileName(in: "attachment; filename=\(quoted)") == name)
            #expect(ContentDisposition.fileName(in: "attachment; filename*=UTF-8''\(Self.extended(name))") == name)
            #expect(ContentDisposition.fileName(in: "attachment;filename=\(FieldPropertyTests.quoted(other)) ;  filename*=utf-8'fr'\(Self.extended(name))") == name)
            let latin1 = String(String.UnicodeScalarView(name.unicodeScalars.filter { $0.value <= 0xFF }))
            let bytes = latin1.unicodeScalars.map { UInt8($0.value) }
            #expect(ContentDisposition.fileName(in: "attachment; filename*=ISO-8859-1''\(Self.percentEncoded(bytes))") == latin1)
        }
    }

    @Test("download file names: any suggestion becomes a safe last component or is refused; safe names stay as they are, but for leading dashes")
    func fileNames() async {
        let samples = [
            "report.pdf", "../../x", "..", ".hidden", "a/b\\c", " . . ", "na\u{0}me", "x\u{85}y", ".\u{301}x", "\u{202E}fdp.exe",
            String(repeating: "\u{301}", count: 200), "x" + String(repeating: "\u{301}", count: 200) + ".txt",
        ]
        let plain = Gen<Character?>.element(of: Array("abcxyzABC019-_ ()")).map { $0! }.string(of: 1...20)
        await propertyCheck(count: Property.cases(2000), input: Property.hostile(samples, favouring: "./\\ \0"), Property.unicode(upTo: 40), plain) { hostile, unicode, plain in
            Self.checkSanitized(hostile)
            Self.checkSanitized(unicode)
            Self.checkSanitized(String(repeating: unicode, count: 12))
            // Leading dashes go (a name is never taken for an option), the rest stays.
            var trimmed = plain.trimmingCharacters(in: .whitespaces)
            while trimmed.hasPrefix("-") { trimmed = String(trimmed.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if !trimmed.isEmpty {
                let kept = try DownloadFileName.sanitized(plain)
                let last = try DownloadFileName.sanitized("folder/" + trimmed + ".txt")
                #expect(kept == trimmed)
                #expect(last == trimmed + ".txt")
            }
        }
    }

    @Test("Content-Range: any value reads without trapping; what reads has first ≤ last < total; any written range reads back")
    func contentRange() async {
        let samples = ["bytes 0-99/1000", "bytes 0-99/*", "bytes */1000", "BYTES 5-5/6", " bytes 1-2/3 ", "bytes 9223372036854775806-9223372036854775806/9223372036854775807"]
        await propertyCheck(
            count: Property.cases(2000), input: Property.hostile(samples, favouring: "bytes 0123456789-/*"),
            Property.integer(in: 0...Int64.max), Property.integer(in: 0...Int64.max), Property.integer(in: 1...Int64.max)
        ) { text, a, b, c in
            if let parsed = ContentRange(text) {
                #expect(parsed.range != nil || parsed.total != nil)
                if let range = parsed.range { #expect(range.lowerBound >= 0) }
                if let range = parsed.range, let total = parsed.total { #expect(range.upperBound < total) }
                #expect(parsed.total.map { $0 >= 0 } ?? true)
            }
            let sorted = [a, b, c].sorted()
            let (first, last, total) = (sorted[0], sorted[1], sorted[2])
            if last < total {
                let read = ContentRange("bytes \(first)-\(last)/\(total)")
                #expect(read?.range == first...last && read?.total == total)
            }
            let open = ContentRange("bytes \(first)-\(last)/*")
            #expect(open?.range == first...last && open != nil && open?.total == nil)
            let unsatisfied = ContentRange("bytes */\(total)")
            #expect(unsatisfied?.total == total && unsatisfied != nil && unsatisfied?.range == nil)
            #expect((ContentRange("bytes \(last)-\(first)/*") != nil) == (first == last))
        }
    }

    @Test("resume decisions: any status, Content-Range, Content-Length, offset and known total decide without trapping")
    func resumeDecisions() async {
        // Byte positions, three times in four at the limits of Int64, in each form of the field.
        let bound = zip(Gen<Int>.value(in: 0...3), Property.integer(in: 0...Int64.max)).map { choice, any in [0, Int64.max, Int64.max - 1, any][choice] }
        let range = zip(bound, bound, bound, Gen<Int>.value(in: 0...2)).map { first, last, total, form in
            (text: ["bytes \(first)-\(last)/\(total)", "bytes \(first)-\(last)/*", "bytes */\(total)"][form], first: first)
        }
        let status = Gen<Int?>.element(of: [200, 206, 206, 416, 304, 500]).map { $0! }
        await propertyCheck(
            count: Property.cases(2000), input: status, zip(range, Property.hostile(["bytes 0-1/2"], favouring: "bytes 0123456789-/*")),
            zip(Property.integer().optional, Gen<Bool>.bool), zip(Property.integer(in: 0...Int64.max), bound.optional, Gen<Bool>.bool)
        ) { status, ranges, length, known in
            let (structured, hostile) = ranges
            let (contentLength, isEncoded) = length
            // Half of the time the range starts where the partial file ends, as a server's does.
            let (anyOffset, expectedTotal, continues) = known
            let offset = continues ? structured.first : anyOffset
            for field in [structured.text, hostile, nil] {
                let decision = ResumeDecision.evaluate(
                    status: status, contentRange: field, contentLength: contentLength, isEncoded: isEncoded, offset: offset, expectedTotal: expectedTotal
                )
                switch decision {
                case .write(let from, _):
                    #expect(from == (status == 206 ? offset : 0))
                case .complete(let total):
                    #expect(status == 416 && total == offset && offset > 0)
                case .startOver:
                    #expect(status == 416)
                case .reject:
                    #expect(status == 206)
                case .fail(let failed):
                    #expect(failed == status && ![200, 206, 416].contains(status))
                }
            }
        }
    }

    @Test("resume records: any file reads as a record or as none, and any record saved reads back the same")
    func resumeRecords() async throws {
        try await Property.withFolder { folder in try await Self.checkResumeRecords(folder.appendingPathComponent("download.courier-resume")) }
    }

    private static func checkResumeRecords(_ file: URL) async throws {
        let valid = [
            #"{"bytesReceived":10,"url":"https://example.test/a","entityTag":"\"x\"","totalBytes":20,"fileName":"a.bin"}"#,
            #"{"bytesReceived":0,"url":"u","lastModified":"Sun, 06 Nov 1994 08:49:37 GMT"}"#,
        ]
        let record = zip(Property.unicode(), Property.unicode().optional, Property.integer(), Property.integer().optional, Property.unicode().optional)
        await propertyCheck(count: Property.cases(300), input: Property.hostile(valid, favouring: "{}\":,0123456789"), record) { text, fields in
            try Data(text.utf8).write(to: file)
            if let loaded = ResumeRecord.load(from: file), let name = loaded.fileName { Self.checkSanitized(name) }
            let (url, tag, received, total, name) = fields
            let saved = ResumeRecord(url: url, entityTag: tag, lastModified: tag, bytesReceived: received, totalBytes: total, fileName: name)
            try saved.save(to: file)
            #expect(ResumeRecord.load(from: file) == saved)
        }
    }

    // MARK: Helpers

    /// Checks that `suggested` is refused as an invalid destination or made into a safe name.
    static func checkSanitized(_ suggested: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let name = try DownloadFileName.sanitized(suggested)
            checkSafe(name, sourceLocation: sourceLocation)
            let again = try? DownloadFileName.sanitized(name)
            #expect(again == name, "sanitizing twice changes \(name.debugDescription)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == .invalidDestination, sourceLocation: sourceLocation)
        }
    }

    /// A name safe to create in a folder: one non-empty component of at most 255 bytes, no
    /// separator, NUL or C0/C1 control, not `.` or `..`, not hidden, and staying in the folder.
    static func checkSafe(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = name.unicodeScalars
        #expect(!name.isEmpty && name.utf8.count <= 255, sourceLocation: sourceLocation)
        #expect(!scalars.contains { $0 == "/" || $0 == "\\" || $0 == "\0" }, "\(name.debugDescription)", sourceLocation: sourceLocation)
        #expect(!scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(name.debugDescription)", sourceLocation: sourceLocation)
        #expect(name != "." && name != "..", sourceLocation: sourceLocation)
        #expect(scalars.first != ".", "hidden: \(name.debugDescription)", sourceLocation: sourceLocation)
        #expect(scalars.first != "-", "an option: \(name.debugDescription)", sourceLocation: sourceLocation)
        #expect(!scalars.contains(where: PrintableText.needsEscaping), "\(name.debugDescription)", sourceLocation: sourceLocation)
        let folder = URL(fileURLWithPath: "/nonexistent/courier-downloads", isDirectory: true)
        let file = folder.appendingPathComponent(name, isDirectory: false)
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path, sourceLocation: sourceLocation)
    }

    /// The RFC 8187 value-chars of `text` in UTF-8.
    static func extended(_ text: String) -> String {
        percentEncoded(Array(text.utf8))
    }

    /// `bytes` with every byte but letters and digits percent-encoded.
    static func percentEncoded(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            return isAlphanumeric ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }
}
