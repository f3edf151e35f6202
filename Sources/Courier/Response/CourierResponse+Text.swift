import Foundation

extension CourierResponse {
    /// The charset named in `Content-Type`, lower-cased, or `nil`.
    public var charset: String? {
        guard let value = headers["Content-Type"] else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")).lowercased()
        }
        return nil
    }

    /// The body as text: in the charset `Content-Type` names when it decodes, else as UTF-8
    /// when the bytes are valid UTF-8, else as ISO-8859-1 (which never fails).
    public func text() -> String {
        if let charset, let encoding = CourierResponse.encoding(forCharset: charset),
            let text = String(data: body, encoding: encoding)
        {
            return text
        }
        if let text = String(data: body, encoding: .utf8) { return text }
        // ISO-8859-1 maps each byte to the code point of the same value.
        return String(String.UnicodeScalarView(body.map { Unicode.Scalar($0) }))
    }

    /// Maps an IANA charset name to a Foundation encoding; `nil` for unknown names.
    static func encoding(forCharset name: String) -> String.Encoding? {
        switch name {
        case "utf-8", "utf8", "unicode-1-1-utf-8": return .utf8
        case "us-ascii", "ascii", "ansi_x3.4-1968": return .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1": return .isoLatin1
        case "iso-8859-2", "latin2", "l2": return .isoLatin2
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1253", "cp1253": return .windowsCP1253
        case "windows-1254", "cp1254": return .windowsCP1254
        case "utf-16": return .utf16
        case "utf-16be": return .utf16BigEndian
        case "utf-16le": return .utf16LittleEndian
        case "utf-32": return .utf32
        case "utf-32be": return .utf32BigEndian
        case "utf-32le": return .utf32LittleEndian
        case "shift_jis", "shift-jis", "sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        case "iso-2022-jp": return .iso2022JP
        case "macintosh", "mac", "x-mac-roman": return .macOSRoman
        default: return nil
        }
    }
}
