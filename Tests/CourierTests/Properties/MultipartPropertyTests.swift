import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: multipart boundaries and part headers")
struct MultipartPropertyTests {
    static let boundaryCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=?")
    static let boundary = Gen<Character?>.element(of: boundaryCharacters).map { $0! }.string(of: 1...70)

    @Test("boundaries: any text is accepted exactly when it has 1 to 70 allowed characters, and an accepted one reads back from the Content-Type")
    func boundaries() async {
        let samples = ["courier-0123", "a b", String(repeating: "x", count: 71), "é", "--", "x\r\n"]
        await propertyCheck(count: Property.cases(1500), input: Property.hostile(samples, favouring: "ab09'()+_,-./:=? "), Self.boundary) { text, valid in
            let allowed = (1...70).contains(text.unicodeScalars.count) && text.allSatisfy { Self.boundaryCharacters.contains($0) }
            let form = try? MultipartForm(boundary: text)
            #expect((form != nil) == allowed, "\(text.debugDescription)")
            let accepted = try? MultipartForm(boundary: valid)
            let parameters = accepted.map { ContentDisposition.parameters(in: $0.contentType) }
            #expect(parameters?.count == 1 && parameters?.first?.name == "boundary" && parameters?.first?.value == valid)
        }
    }

    /// The part header follows the HTML form encoding, which leaves backslashes as they are;
    /// an RFC 6266 reader takes them for escapes, so names and file names with one are left
    /// out of the reading back.
    @Test("part headers: any name and file name give a header value without line breaks or controls, from which the file name reads back")
    func dispositions() async {
        await propertyCheck(count: Property.cases(1500), input: Property.unicode(upTo: 30), Property.unicode(upTo: 30)) { name, filename in
            let value = MultipartForm.disposition(name: name, filename: filename)
            #expect(!value.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(value.debugDescription)")
            if Self.readsBack(name: name, filename: filename) {
                let read = ContentDisposition.fileName(in: value)
                #expect(read == filename, "\(filename.unicodeScalars.map { String($0.value, radix: 16) }) in \(value.debugDescription)")
            }
        }
    }

    /// Whether the file name must read back unchanged: names and file names with a backslash
    /// are left out (see above), and so are ASCII file names with a character the writer
    /// percent-encodes (`"` and controls), since only `filename*` would carry them and an ASCII
    /// name has none. A non-ASCII file name always reads back, from `filename*`.
    static func readsBack(name: String, filename: String) -> Bool {
        var hasBackslash = false
        var isASCII = true
        var isEncoded = false
        for scalar in name.unicodeScalars where scalar == "\\" {
            hasBackslash = true
        }
        for scalar in filename.unicodeScalars {
            if scalar == "\\" { hasBackslash = true }
            if !scalar.isASCII { isASCII = false }
            if scalar == "\"" || scalar.value < 0x20 || scalar.value == 0x7F { isEncoded = true }
        }
        return !hasBackslash && (!isASCII || !isEncoded)
    }

    @Test("bodies: parts of any text and names are framed by the boundary, one delimiter per part")
    func bodies() async throws {
        let part = zip(Property.unicode(upTo: 12), Property.unicode(upTo: 40), Property.unicode(upTo: 12).optional)
        await propertyCheck(count: Property.cases(500), input: Self.boundary, part.array(of: 0...4)) { boundary, parts in
            var form = try MultipartForm(boundary: boundary)
            for (name, text, filename) in parts {
                if let filename { form.addData(Data(text.utf8), named: name, filename: filename) } else { form.addField(text, named: name) }
            }
            let body = try form.segments().reduce(into: Data()) { data, segment in
                if case .bytes(let bytes) = segment { data.append(bytes) }
            }
            let text = String(decoding: body, as: UTF8.self)
            let delimiter = Data(boundary.utf8)
            let contentHasBoundary = parts.contains { Data(($0.0 + $0.1 + ($0.2 ?? "")).utf8).range(of: delimiter) != nil }
            guard !contentHasBoundary else { return }
            #expect(body.suffix(boundary.utf8.count + 6) == Data("--\(boundary)--\r\n".utf8))
            let head = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"".utf8)
            #expect(parts.isEmpty || body.prefix(head.count) == head)
            #expect(text.components(separatedBy: "--\(boundary)").count == parts.count + 2)
        }
    }
}
