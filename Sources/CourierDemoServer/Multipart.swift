/// A minimal `multipart/form-data` (RFC 7578) parser for echoing uploads.
package enum Multipart {
    /// One body part.
    struct Part {
        /// The `name` parameter of `Content-Disposition`.
        var name: String
        /// The `filename` parameter of `Content-Disposition`, if any.
        var filename: String?
        /// The `filename*` parameter of `Content-Disposition` (RFC 8187), decoded, if any.
        var extendedFilename: String?
        /// The `Content-Disposition` value as received.
        var disposition: String
        /// The part's `Content-Type`, if any.
        var contentType: String?
        /// The part's content.
        var content: [UInt8]
    }

    /// The value of parameter `name` in a header value like `multipart/form-data; boundary="abc"`.
    static func parameter(_ name: String, in headerValue: String) -> String? {
        for component in self.splitParameters(headerValue).dropFirst() {
            guard let equals = component.firstIndex(of: "=") else { continue }
            let key = component[..<equals].trimmingSpaces().lowercased()
            guard key == name.lowercased() else { continue }
            return self.unquote(component[component.index(after: equals)...].trimmingSpaces())
        }
        return nil
    }

    /// Parses `body` delimited by `boundary`. Malformed parts are skipped.
    static func parse(_ body: [UInt8], boundary: String) -> [Part] {
        let delimiter = Array(("--" + boundary).utf8)
        var positions: [Int] = []
        var searchFrom = 0
        while let found = self.find(delimiter, in: body, from: searchFrom) {
            positions.append(found)
            searchFrom = found + delimiter.count
        }
        var parts: [Part] = []
        for (start, end) in zip(positions, positions.dropFirst()) {
            var partStart = start + delimiter.count
            // Skip the line break after the delimiter.
            if body[partStart..<min(end, partStart + 2)].elementsEqual([13, 10]) { partStart += 2 }
            var partEnd = end
            // Drop the line break that belongs to the next delimiter.
            if partEnd - 2 >= partStart, body[(partEnd - 2)..<partEnd].elementsEqual([13, 10]) { partEnd -= 2 }
            if let part = self.parsePart(Array(body[partStart..<partEnd])) {
                parts.append(part)
            }
        }
        return parts
    }

    private static func parsePart(_ bytes: [UInt8]) -> Part? {
        let separator: [UInt8] = [13, 10, 13, 10]
        let headerEnd: Int
        let contentStart: Int
        if bytes.starts(with: [13, 10]) {
            headerEnd = 0
            contentStart = 2
        } else if let found = self.find(separator, in: bytes, from: 0) {
            headerEnd = found
            contentStart = found + 4
        } else {
            return nil
        }
        let headerText = String(decoding: bytes[0..<headerEnd], as: UTF8.self)
        var disposition: String?
        var contentType: String?
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            if name == "content-disposition" { disposition = value }
            if name == "content-type" { contentType = value }
        }
        guard let disposition, let name = self.parameter("name", in: disposition) else { return nil }
        return Part(
            name: name,
            filename: self.parameter("filename", in: disposition),
            extendedFilename: self.parameter("filename*", in: disposition).flatMap(self.decodeExtendedValue),
            disposition: disposition,
            contentType: contentType,
            content: Array(bytes[contentStart...])
        )
    }

    /// Decodes an RFC 8187 value, `UTF-8'language'percent-encoded-text`; `nil` for another charset.
    static func decodeExtendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].lowercased() == "utf-8" else { return nil }
        return URLEncoding.percentDecode(pieces[2])
    }

    /// Splits a header value at `;` outside quoted strings.
    private static func splitParameters(_ value: String) -> [Substring] {
        var result: [Substring] = []
        var start = value.startIndex
        var inQuotes = false
        var escaped = false
        for index in value.indices {
            let character = value[index]
            if escaped {
                escaped = false
            } else if character == "\\" && inQuotes {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == ";" && !inQuotes {
                result.append(value[start..<index])
                start = value.index(after: index)
            }
        }
        result.append(value[start...])
        return result
    }

    private static func unquote(_ text: Substring) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return String(text) }
        var out = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped || character != "\\" {
                out.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return out
    }

    /// The index of the first occurrence of `needle` in `haystack` at or after `from`.
    package static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, from <= haystack.count - needle.count else {
            return nil
        }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        let text = self
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return text[start..<Swift.max(start, end)]
    }
}
