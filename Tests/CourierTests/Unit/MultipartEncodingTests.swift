import Foundation
import Testing

@testable import Courier

@Suite("Multipart encoding")
struct MultipartEncodingTests {
    @Test(
        "Content-Disposition escapes quotes, CR and LF, and adds filename* for non-ASCII names",
        arguments: [
            ("field", nil, #"form-data; name="field""#),
            ("say \"hi\"", nil, #"form-data; name="say %22hi%22""#),
            ("a\r\nContent-Type: text/html", nil, #"form-data; name="a%0D%0AContent-Type: text/html""#),
            ("tab\tand\u{0}nul", nil, #"form-data; name="tab%09and%00nul""#),
            ("名前", nil, #"form-data; name="名前""#),
            ("f", "report \"final\".pdf", #"form-data; name="f"; filename="report %22final%22.pdf""#),
            ("f", "two\nlines\r.txt", #"form-data; name="f"; filename="two%0Alines%0D.txt""#),
            ("f", "résumé.pdf", #"form-data; name="f"; filename="resume.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"#),
            ("f", "日本語.txt", #"form-data; name="f"; filename="___.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.txt"#),
            ("f", "naïve \"q\"\n😀.txt", #"form-data; name="f"; filename="naive %22q%22%0A_.txt"; filename*=UTF-8''na%C3%AFve%20%22q%22%0A%F0%9F%98%80.txt"#),
            ("f", "a;b=c's%.txt", #"form-data; name="f"; filename="a;b=c's%.txt""#),
        ] as [(String, String?, String)])
    func disposition(name: String, filename: String?, expected: String) {
        #expect(MultipartForm.disposition(name: name, filename: filename) == expected)
    }

    @Test(
        "media types are guessed from the extension, case-insensitively",
        arguments: [
            ("photo.PNG", "image/png"), ("a.jpeg", "image/jpeg"), ("notes.txt", "text/plain"),
            ("data.json", "application/json"), ("archive.tar.gz", "application/gzip"), ("doc.pdf", "application/pdf"),
            ("clip.mp4", "video/mp4"), ("no-extension", "application/octet-stream"),
            (".hidden", "application/octet-stream"), ("trailing.", "application/octet-stream"),
            ("unknown.qqq", "application/octet-stream"),
        ])
    func mediaTypes(filename: String, expected: String) {
        #expect(MediaTypes.type(forFilename: filename) == expected)
    }

    @Test("a file's filename defaults to its own name and its type to the guess; data without a filename is octet-stream")
    func partDefaults() throws {
        var form = MultipartForm()
        form.addFile(at: URL(fileURLWithPath: "/tmp/dir/picture.webp"), named: "a")
        form.addFile(at: URL(fileURLWithPath: "/tmp/dir/picture.webp"), named: "b", filename: "other.png", contentType: "image/x-custom")
        form.addData(Data([1]), named: "c")
        form.addData(Data([1]), named: "d", filename: "table.csv")
        form.addField("v", named: "e")
        let parts = form.parts
        #expect(parts.map(\.filename) == ["picture.webp", "other.png", nil, "table.csv", nil])
        #expect(parts.map(\.contentType) == ["image/webp", "image/x-custom", "application/octet-stream", "text/csv", nil])
    }

    @Test("random boundaries carry 128 bits from the system generator and differ every time")
    func randomBoundaries() {
        let boundaries = (0..<50).map { _ in MultipartForm().boundary }
        #expect(Set(boundaries).count == 50)
        for boundary in boundaries {
            #expect(boundary.hasPrefix("courier-"))
            let hex = boundary.dropFirst("courier-".count)
            #expect(hex.count == 32 && hex.allSatisfy(\.isHexDigit))
        }
        #expect(MultipartForm().contentType.hasPrefix("multipart/form-data; boundary=courier-"))
    }

    @Test(
        "a chosen boundary must be 1 to 70 allowed characters",
        arguments: [
            ("simple", true), ("with'()+_,-./:=?", true), (String(repeating: "b", count: 70), true),
            ("", false), (String(repeating: "b", count: 71), false), ("has space", false),
            ("quote\"", false), ("line\r\nbreak", false), ("é", false),
        ])
    func chosenBoundary(boundary: String, valid: Bool) {
        let made = try? MultipartForm(boundary: boundary)
        #expect((made != nil) == valid)
        if let made { #expect(made.boundary == boundary) }
    }

    @Test("a content type with a line break is refused before anything is sent")
    func contentTypeInjection() {
        var form = MultipartForm()
        form.addData(Data([1]), named: "x", filename: "x.bin", contentType: "text/plain\r\nX-Injected: 1")
        #expect(throws: CourierError.self) { try CourierRequestBody.multipart(form) }
    }

    @Test("a missing file or a directory is refused when the body is made, naming the path")
    func unreadableFiles() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.bin")
        var form = MultipartForm()
        form.addFile(at: missing, named: "f")
        let error = #expect(throws: CourierError.self) { try CourierRequestBody.multipart(form) }
        #expect(error?.kind == .invalidBody)
        #expect(error?.message.contains(missing.path) == true)

        var directory = MultipartForm()
        directory.addFile(at: FileManager.default.temporaryDirectory, named: "f")
        let notRegular = #expect(throws: CourierError.self) { try CourierRequestBody.multipart(directory) }
        #expect(notRegular?.message.contains("not a regular file") == true)
    }
}
