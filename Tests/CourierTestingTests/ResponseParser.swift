import Foundation

/// Parses HTTP/1.1 responses from raw bytes (test helper).
enum ResponseParser {
    /// Parses one response at the start of `bytes`.
    ///
    /// - Returns: the response and the number of bytes it used, or `nil` if more bytes are needed.
    static func parse(_ bytes: [UInt8], toHead: Bool, atEOF: Bool) throws -> (RawResponse, Int)? {
        guard let headEnd = self.find([13, 10, 13, 10], in: bytes, from: 0) else { return nil }
        let headText = String(decoding: bytes[0..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw RawClientError.malformed(statusLine)
        }
        let headers: [(String, String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(statusLine: statusLine, status: status, headers: headers, body: [])
        let bodyStart = headEnd + 4
        if toHead || (100...199).contains(status) || status == 204 || status == 304 {
            return (response, bodyStart)
        }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            guard let (body, end) = try self.parseChunked(bytes, from: bodyStart) else { return nil }
            response.body = body
            return (response, end)
        }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText) else { throw RawClientError.malformed(lengthText) }
            guard bytes.count - bodyStart >= length else { return nil }
            response.body = Array(bytes[bodyStart..<(bodyStart + length)])
            return (response, bodyStart + length)
        }
        guard atEOF else { return nil }
        response.body = Array(bytes[bodyStart...])
        return (response, bytes.count)
    }

    private static func parseChunked(_ bytes: [UInt8], from start: Int) throws -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var position = start
        while true {
            guard let lineEnd = self.find([13, 10], in: bytes, from: position) else { return nil }
            let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
            let sizeField = sizeText.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeField.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw RawClientError.malformed("chunk size \(sizeText)")
            }
            position = lineEnd + 2
            if size == 0 {
                // Trailer section: lines until an empty line.
                while true {
                    guard let end = self.find([13, 10], in: bytes, from: position) else { return nil }
                    let isEmpty = end == position
                    position = end + 2
                    if isEmpty { return (body, position) }
                }
            }
            guard bytes.count >= position + size + 2 else { return nil }
            body.append(contentsOf: bytes[position..<(position + size)])
            position += size + 2
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        for index in from...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
