import Foundation

/// The entries of a `.netrc` file, as curl reads it: `machine NAME`, or `default`, followed by
/// `login NAME`, `password SECRET` and `account NAME`, the words separated by any white space
/// (line breaks included). A word may be double-quoted, with `\"`, `\\`, `\n`, `\r` and `\t`
/// escapes; a word that starts with `#` starts a comment that runs to the end of its line;
/// `macdef NAME` starts a macro, skipped up to the next empty line.
struct Netrc: Sendable, Equatable {
    /// One `machine` or `default` entry.
    struct Entry: Sendable, Equatable {
        /// The host name, or `nil` for `default`.
        var machine: String?
        /// The `login` word.
        var login: String?
        /// The `password` word.
        var password: String?
    }

    /// Why a file could not be read as a netrc file.
    struct ParseError: Error, Equatable {
        var message: String
    }

    /// The largest file read: 1 MiB.
    static let maximumSize = 1 << 20

    /// The entries, in the file's order.
    var entries: [Entry]

    /// The entry for `host` (compared without regard to case): the first `machine` entry for it
    /// whose login is `login`, when one is given, else the `default` entry, if it fits.
    func entry(forHost host: String, login: String? = nil) -> Entry? {
        let fits = { (entry: Entry) in login == nil || entry.login == login }
        let host = host.lowercased()
        return entries.first { $0.machine?.lowercased() == host && fits($0) } ?? entries.first { $0.machine == nil && fits($0) }
    }

    /// Reads the entries of `bytes`.
    ///
    /// - Throws: ``ParseError`` for a quoted word that does not end, or a keyword without the
    ///   word it needs.
    init(_ bytes: [UInt8]) throws(ParseError) {
        var words = NetrcWords(bytes)
        var entries: [Entry] = []
        while let word = try words.next() {
            switch word {
            case "machine":
                guard let name = try words.next() else { throw ParseError(message: "'machine' is not followed by a host name") }
                entries.append(Entry(machine: name))
            case "default":
                entries.append(Entry(machine: nil))
            case "login", "password", "account":
                guard let value = try words.next() else { throw ParseError(message: "'\(word)' is not followed by a value") }
                guard !entries.isEmpty else { continue }
                if word == "login" { entries[entries.count - 1].login = value }
                if word == "password" { entries[entries.count - 1].password = value }
            case "macdef":
                words.skipMacro()
            default:
                // curl ignores words it does not know.
                continue
            }
        }
        self.entries = entries
    }
}

/// The words of a netrc file, one at a time.
private struct NetrcWords {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next word, or `nil` at the end of the file.
    mutating func next() throws(Netrc.ParseError) -> String? {
        while true {
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            guard bytes[index] == UInt8(ascii: "#") else { break }
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        }
        var word: [UInt8] = []
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            while true {
                guard index < bytes.count else { throw Netrc.ParseError(message: "a quoted word has no closing '\"'") }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                guard byte == UInt8(ascii: "\\"), index < bytes.count else {
                    word.append(byte)
                    continue
                }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): word.append(0x0A)
                case UInt8(ascii: "r"): word.append(0x0D)
                case UInt8(ascii: "t"): word.append(0x09)
                default: word.append(escaped)
                }
            }
        } else {
            while index < bytes.count, !Self.isSpace(bytes[index]) {
                word.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: word, as: UTF8.self)
    }

    /// Skips a `macdef` name and its body, up to and including the next empty line.
    mutating func skipMacro() {
        while index < bytes.count, bytes[index] != 0x0A { index += 1 }
        index += 1
        while index < bytes.count {
            let lineStart = index
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            let line = bytes[lineStart..<min(index, bytes.count)]
            index += 1
            if line.allSatisfy({ $0 == 0x0D }) { return }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }
}
