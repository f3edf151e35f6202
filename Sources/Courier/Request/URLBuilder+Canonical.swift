import Foundation

extension URLBuilder {
    /// The URL for an input that the rule would leave exactly as it is, or `nil` when it might
    /// change it (or refuse it): then ``url(path:baseString:queryPairs:)`` takes the full way.
    ///
    /// Most requests' inputs are already canonical: `http` or `https` in lower case, a plain
    /// host and port, a path of URL characters with no `.` or `..` segment, and no query items
    /// to add. For those the result is the text itself (the absolute URL, or the base URL and
    /// the path joined by one `/`), so it is parsed once instead of being cut into parts,
    /// encoded and put together again. Any byte, segment or authority the checks below do not
    /// know sends the input the full way, which gives the same URL or the precise error.
    static func canonicalURL(path: String, baseString base: String?, queryPairs: [(String, String?)]) -> URL? {
        guard queryPairs.isEmpty else { return nil }
        let text: String
        if isHTTPPrefixed(path) {
            guard isCanonical(absolute: path) else { return nil }
            text = path
        } else {
            guard let base, !base.utf8.contains(UInt8(ascii: "?")), !base.utf8.contains(UInt8(ascii: "#")), isHTTPPrefixed(base),
                isCanonical(absolute: base)
            else { return nil }
            let relative = path.utf8.drop { $0 == UInt8(ascii: "/") }
            // A path the rule treats specially: empty (the base itself), `//…` (scheme-relative),
            // anything that could read as a scheme, or an empty own query (which the rule drops).
            guard let first = relative.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "#"),
                path.utf8.first != UInt8(ascii: "."), !isSchemeRelative(path), !hasScheme(path),
                isCanonical(pathQueryFragment: Substring(relative)), !hasEmptyQuery(Substring(relative))
            else { return nil }
            text = base + (base.utf8.last == UInt8(ascii: "/") ? "" : "/") + Substring(relative)
        }
        // The authority was checked above: a host of at least one letter, digit, dot or hyphen,
        // so the parsed URL has one, and it is not looked up again.
        return URL(string: text)
    }

    /// Whether `text` starts with `//`: a scheme-relative reference, which takes the base URL's
    /// scheme and nothing else from it.
    static func isSchemeRelative(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        return bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "/")
    }

    /// Whether `text` starts with `http://` or `https://`, in lower case: read from the string's
    /// own bytes, since walking two strings' views in step costs more than the rest of the check.
    private static func isHTTPPrefixed(_ text: String) -> Bool {
        if let length = text.utf8.withContiguousStorageIfAvailable({ httpSchemeLength($0) }) { return length != nil }
        return Array(text.utf8.prefix(8)).withUnsafeBufferPointer { httpSchemeLength($0) } != nil
    }

    /// 7 for `http://`, 8 for `https://`, `nil` for anything else.
    private static func httpSchemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 7, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"), bytes[2] == UInt8(ascii: "t"),
            bytes[3] == UInt8(ascii: "p")
        else { return nil }
        let colon = bytes[4] == UInt8(ascii: "s") ? 5 : 4
        guard bytes.count >= colon + 3, bytes[colon] == UInt8(ascii: ":"), bytes[colon + 1] == UInt8(ascii: "/"),
            bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        return colon + 3
    }

    /// Whether `text` (`http://` or `https://`, then the rest) is an absolute URL the rule keeps
    /// as it is.
    private static func isCanonical(absolute text: String) -> Bool {
        // Read in place: a native string's bytes are not copied, nor walked index by index.
        if let result = text.utf8.withContiguousStorageIfAvailable({ isCanonical(absolute: $0) }) { return result }
        return Array(text.utf8).withUnsafeBufferPointer { isCanonical(absolute: $0) }
    }

    private static func isCanonical(absolute bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let schemeLength = httpSchemeLength(bytes), bytes.count > schemeLength else { return false }
        let rest = UnsafeBufferPointer(rebasing: bytes[schemeLength...])
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.count
        guard isPlainAuthority(UnsafeBufferPointer(rebasing: rest[..<authorityEnd])) else { return false }
        return isCanonical(pathQueryFragment: UnsafeBufferPointer(rebasing: rest[authorityEnd...]))
    }

    /// A host of letters, digits, dots and hyphens, and at most one port of one to five digits
    /// no greater than 65535.
    private static func isPlainAuthority(_ authority: UnsafeBufferPointer<UInt8>) -> Bool {
        var host = 0
        var port: Int?
        for byte in authority {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "-"):
                guard port == nil else { return false }
                host += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let digits = port {
                    port = digits * 10 + Int(byte - UInt8(ascii: "0"))
                    guard port! <= 65535 else { return false }
                } else {
                    host += 1
                }
            case UInt8(ascii: ":"):
                guard port == nil else { return false }
                port = 0
            default:
                return false
            }
        }
        // "host:" with no digits: the full way decides.
        return host > 0 && authority.last != UInt8(ascii: ":")
    }

    /// Whether a path with its query and fragment holds only characters the rule keeps, `%XX`
    /// escapes that are whole, at most one `#`, and no `.` or `..` segment.
    private static func isCanonical(pathQueryFragment text: Substring) -> Bool {
        // Read in place: a native string's bytes are not copied.
        if let result = text.utf8.withContiguousStorageIfAvailable({ isCanonical(pathQueryFragment: $0) }) { return result }
        return Array(text.utf8).withUnsafeBufferPointer { isCanonical(pathQueryFragment: $0) }
    }

    private static func isCanonical(pathQueryFragment bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var inPath = true
        var sawFragment = false
        var segmentStart = 0
        var index = 0
        func isDotSegment(_ end: Int) -> Bool {
            let length = end - segmentStart
            return (length == 1 || length == 2) && bytes[segmentStart..<end].allSatisfy { $0 == UInt8(ascii: ".") }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, PercentEncoding.isHexDigit(bytes[index + 1]), PercentEncoding.isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            if inPath, byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                if isDotSegment(index) { return false }
                segmentStart = index + 1
            }
            switch byte {
            case UInt8(ascii: "?"):
                inPath = false
            case UInt8(ascii: "#"):
                guard !sawFragment else { return false }
                sawFragment = true
                inPath = false
            default:
                guard
                    PercentEncoding.isUnreserved(byte) || PercentEncoding.isSubDelimiter(byte)
                        || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
                else { return false }
            }
            index += 1
        }
        return !(inPath && isDotSegment(bytes.count))
    }

    /// Whether the path's own query is present and empty (`p?` or `p?#f`), which the rule drops.
    private static func hasEmptyQuery(_ text: Substring) -> Bool {
        guard let mark = text.utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        let after = text.utf8.index(after: mark)
        return after == text.utf8.endIndex || text.utf8[after] == UInt8(ascii: "#")
    }
}
