import Foundation
import PropertyBased
import Testing

/// What the property suites share: how many cases each property runs, and generators of
/// hostile input for the parsers of bytes that come from the network or from disk.
///
/// Every property runs ``cases(_:)`` cases: a bounded number in `swift test`, or the count
/// in `COURIER_PROPERTY_CASES` for a longer run:
///
/// ```sh
/// COURIER_PROPERTY_CASES=200000 swift test --filter Property
/// ```
enum Property {
    /// The environment variable that sets the number of cases of every property.
    static let casesVariable = "COURIER_PROPERTY_CASES"

    /// The cases a property runs: `COURIER_PROPERTY_CASES` when it holds a positive number,
    /// else `standard`, sized so that the whole suite stays quick in a debug build.
    static func cases(_ standard: Int = 400) -> Int {
        guard let text = ProcessInfo.processInfo.environment[casesVariable], let count = Int(text), count > 0 else {
            return standard
        }
        return count
    }

    /// Runs `body` with a new empty folder, removed afterwards, for properties of files.
    static func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-property-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    // MARK: Arbitrary input

    /// Any bytes, up to `length`.
    static func bytes(upTo length: Int = 96) -> Generator<[UInt8], some SendableSequenceType> {
        Gen<UInt8>.value(in: 0...255).array(of: 0...length)
    }

    /// Any bytes, read as UTF-8 text (invalid sequences become U+FFFD, as a field read from
    /// the wire does).
    static func text(upTo length: Int = 96) -> Generator<String, some SendableSequenceType> {
        bytes(upTo: length).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Printable ASCII, space to `~`.
    static func printable(upTo length: Int = 96) -> Generator<String, some SendableSequenceType> {
        Gen<UInt8>.value(in: 0x20...0x7E).array(of: 0...length).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Printable ASCII drawn mostly from `alphabet`, the characters a parser cares about, so
    /// that random text often reaches its deeper branches.
    static func printable(favouring alphabet: String, upTo length: Int = 64) -> Generator<String, some SendableSequenceType> {
        Generator<String, Shrink.None<String>> { rng in favoured(alphabet, upTo: length, &rng) }
    }

    private static func favoured(_ alphabet: String, upTo length: Int, _ rng: inout any SeededRandomNumberGenerator) -> String {
        let favoured = Array(alphabet.utf8)
        let count = Int(rng.next() % UInt64(length + 1))
        var bytes: [UInt8] = []
        for _ in 0..<count {
            bytes.append(rng.next() % 3 == 0 ? UInt8(0x20 + rng.next() % 95) : favoured[Int(rng.next() % UInt64(favoured.count))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Unicode text of up to `length` scalars: ASCII (controls included), C1 controls,
    /// combining marks, Latin-1, other scripts, format characters and emoji.
    static func unicode(upTo length: Int = 24) -> Generator<String, some SendableSequenceType> {
        Generator<String, Shrink.None<String>> { rng in
            let ranges: [ClosedRange<UInt32>] = [
                0x00...0x7F, 0x20...0x7E, 0x20...0x7E, 0x80...0x9F, 0xA0...0xFF, 0x300...0x36F, 0x391...0x3C9,
                0x200B...0x202E, 0x4E00...0x4E80, 0x1F600...0x1F64F,
            ]
            var text = String.UnicodeScalarView()
            for _ in 0..<(rng.next() % UInt64(length + 1)) {
                let range = ranges[Int(rng.next() % UInt64(ranges.count))]
                text.append(Unicode.Scalar(range.lowerBound + UInt32(rng.next() % UInt64(range.count)))!)
            }
            return String(text)
        }
    }

    /// A 64-bit integer in `range`, half of the time one of its edges or a value next to
    /// them, so that overflow at the limits is tried often.
    static func integer(in range: ClosedRange<Int64> = .min ... .max) -> Generator<Int64, some SendableSequenceType> {
        Generator<Int64, Shrink.None<Int64>> { rng in
            let edges =
                [range.lowerBound, range.upperBound, 0, 1, -1, Int64.max, Int64.max - 1, Int64(Int32.max), Int64(UInt32.max)]
                + [range.lowerBound &+ 1, range.upperBound &- 1].filter { range.contains($0) }
            if rng.next() % 2 == 0 {
                let edge = edges[Int(rng.next() % UInt64(edges.count))]
                if range.contains(edge) { return edge }
            }
            let width = UInt64(bitPattern: range.upperBound &- range.lowerBound)
            let offset = width == .max ? rng.next() : rng.next() % (width + 1)
            return range.lowerBound &+ Int64(bitPattern: offset)
        }
    }

    // MARK: Near-valid input

    /// One of `samples`, valid values of the field, changed by one to four mutations:
    /// truncation, deletion, inserted control characters (C0, DEL, C1) or other non-ASCII
    /// text, huge numbers, repeated separators, swapped bytes and very long repetitions.
    static func mutated(_ samples: [String]) -> Generator<String, some SendableSequenceType> {
        Generator<String, Shrink.None<String>> { rng in mutated(samples, &rng) }
    }

    private static func mutated(_ samples: [String], _ rng: inout any SeededRandomNumberGenerator) -> String {
        var bytes = Array(samples[Int(rng.next() % UInt64(samples.count))].utf8)
        for _ in 0...(rng.next() % 4) { mutate(&bytes, &rng) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Valid input, arbitrary bytes, printable ASCII favouring `alphabet`, and near-valid
    /// mutations of `samples` (half of the cases).
    static func hostile(_ samples: [String], favouring alphabet: String) -> Generator<String, some SendableSequenceType> {
        Generator<String, Shrink.None<String>> { rng in
            switch rng.next() % 8 {
            case 0: return samples[Int(rng.next() % UInt64(samples.count))]
            case 1, 2:
                let count = Int(rng.next() % 97)
                return String(decoding: (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, as: UTF8.self)
            case 3: return favoured(alphabet, upTo: 64, &rng)
            default: return mutated(samples, &rng)
            }
        }
    }

    /// The longest input a mutation makes: long enough for any limit a parser has, short
    /// enough to keep each case quick.
    static let longest = 16 * 1024

    /// Pieces inserted by ``mutate(_:_:)``.
    private static let insertions: [[UInt8]] = [
        [0x00], [0x09], [0x0A], [0x0D, 0x0A], [0x1B], [0x7F], [0xC2, 0x85], [0xC2, 0x9F],
        Array("99999999999999999999999999".utf8), Array("-1".utf8), Array("9223372036854775808".utf8),
        Array("\"".utf8), Array("\\".utf8), Array("=".utf8), Array("\u{301}".utf8), Array("é".utf8),
        Array("İ".utf8), Array("\u{FEFF}".utf8), Array("🦆".utf8), Array("%".utf8), Array("'".utf8),
    ]

    /// Separators repeated by ``mutate(_:_:)``.
    private static let separators = Array(",;=:-/ \t\"'*.".utf8)

    /// Applies one random mutation to `bytes`.
    static func mutate<Random: RandomNumberGenerator>(_ bytes: inout [UInt8], _ rng: inout Random) {
        func position(_ limit: Int) -> Int { Int(rng.next() % UInt64(limit + 1)) }
        switch rng.next() % 9 {
        case 0:
            bytes = Array(bytes.prefix(position(bytes.count)))
        case 1:
            let start = position(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + position(8)))
        case 2, 3:
            bytes.insert(contentsOf: insertions[Int(rng.next() % UInt64(insertions.count))], at: position(bytes.count))
        case 4:
            let separator = separators[Int(rng.next() % UInt64(separators.count))]
            bytes.insert(contentsOf: Array(repeating: separator, count: 1 + position(64)), at: position(bytes.count))
        case 5:
            if !bytes.isEmpty { bytes[position(bytes.count - 1)] = UInt8(truncatingIfNeeded: rng.next()) }
        case 6:
            // Digits replaced by a long run of nines: numbers far past any integer type.
            bytes = bytes.flatMap { (0x30...0x39).contains($0) && rng.next() % 2 == 0 ? Array(repeating: 0x39, count: 1 + position(30)) : [$0] }
        case 7:
            // Very long input, up to ``longest`` bytes.
            let copies = 1 + position(rng.next() % 8 == 0 ? 400 : 6)
            bytes = Array([[UInt8]](repeating: bytes, count: copies).joined().prefix(longest))
        default:
            if bytes.count > 1 { bytes.swapAt(position(bytes.count - 1), position(bytes.count - 1)) }
        }
    }
}
