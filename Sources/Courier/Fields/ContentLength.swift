/// How a `Content-Length` value is read wherever Courier uses one (a size limit checked before
/// the body arrives, a download's total, a progress line, a metric): decimal digits only
/// (RFC 9110, section 8.6), with the spaces and tabs around a field value allowed, and small
/// enough for an `Int64`. A sign, a list, a fraction or an empty value declares no length.
///
/// The framing of a body is not decided here: the HTTP parsers refuse a message whose length
/// field cannot frame it. This reads the length a response announced, once, in one way.
package enum ContentLength {
    /// The length `value` declares, or `nil` when it is not a valid `Content-Length`.
    package static func parse(_ value: some StringProtocol) -> Int64? {
        var utf8 = Substring(value).utf8[...]
        while let first = utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { utf8.removeFirst() }
        while let last = utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { utf8.removeLast() }
        guard !utf8.isEmpty else { return nil }
        var length: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowed) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowed, !overflowedAgain else { return nil }
            length = sum
        }
        return length
    }
}

extension Headers {
    /// The body length the `Content-Length` field declares, read by ``ContentLength``.
    package var contentLength: Int64? {
        self["Content-Length"].flatMap(ContentLength.parse)
    }
}
