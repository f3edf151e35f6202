import Crypto
import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: disk cache entry files")
struct DiskEntryPropertyTests {
    /// Any entry: text of any scalars, any status, headers, tags and body, and finite dates.
    static var entry: Generator<CourierCacheEntry, some SendableSequenceType> {
        zip(
            zip(Property.unicode(upTo: 30), Property.unicode(upTo: 8), Property.unicode(upTo: 8), Property.integer()),
            zip(Property.unicode(upTo: 10), Property.unicode(upTo: 20)).array(of: 0...5),
            zip(Property.unicode(upTo: 6), Property.unicode(upTo: 6)).array(of: 0...3),
            zip(Property.bytes(upTo: 200), Gen<Double>.double(in: -1e12...1e12), Gen<Double>.double(in: -1e12...1e12))
        ).map { texts, fields, tags, rest in
            CourierCacheEntry(
                key: texts.0, variant: texts.1, status: Int(texts.3), reasonPhrase: texts.2, headers: Headers(fields), body: Data(rest.0),
                requestDate: Date(timeIntervalSinceReferenceDate: rest.1), responseDate: Date(timeIntervalSinceReferenceDate: rest.2),
                tags: Dictionary(tags, uniquingKeysWith: { first, _ in first })
            )
        }
    }

    @Test("any bytes, with or without a layout's magic, read as an entry or as a miss, never a trap")
    func arbitraryFiles() async {
        let magic = Gen<Int>.value(in: 0...2).map { [[], DiskEntryFormat.magic, DiskEntryFormat.JSONLayout.magic][$0] }
        await propertyCheck(count: Property.cases(1500), input: magic, Property.bytes(upTo: 200)) { magic, bytes in
            _ = DiskEntryFormat.decode(Data(magic + bytes))
        }
    }

    @Test("any entry reads back exactly; any cut, extension or changed byte of its file is a miss")
    func roundTripAndDamage() async throws {
        await propertyCheck(count: Property.cases(800), input: Self.entry, Property.integer(), Gen<UInt64>.value()) { entry, storedAt, choice in
            let file = try DiskEntryFormat.encode(entry, storedAt: storedAt)
            let decoded = DiskEntryFormat.decode(file)
            #expect(decoded?.entry == entry && decoded?.storedAt == storedAt)

            let position = Int(choice >> 8) % file.count
            #expect(DiskEntryFormat.decode(file.prefix(position)) == nil, "cut at \(position) of \(file.count)")
            #expect(DiskEntryFormat.decode(file + [UInt8(truncatingIfNeeded: choice)]) == nil)
            var altered = file
            altered[position] ^= UInt8(truncatingIfNeeded: choice | 1)
            #expect(DiskEntryFormat.decode(altered) == nil, "byte \(position) of \(file.count) altered")
        }
    }

    @Test("metadata changed and signed again, so that only its reading can refuse it, is a miss or an entry whose freshness is sane")
    func resignedMetadata() async throws {
        await propertyCheck(count: Property.cases(1000), input: Self.entry, Gen<UInt64>.value(), Gen<UInt64>.value()) { entry, seed, lengthChoice in
            let file = try DiskEntryFormat.encode(entry, storedAt: 0)
            let metadataLength = Int(file[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            var metadata = Array(file[DiskEntryFormat.prefixLength..<(DiskEntryFormat.prefixLength + metadataLength)])
            var random = SplitMix(seed: seed)
            for _ in 0...(seed % 3) { Self.damage(&metadata, &random) }
            let body = Array(file[(DiskEntryFormat.prefixLength + metadataLength)...])
            // A body length that disagrees with the file now and then, still signed.
            let bodyLength = lengthChoice % 5 == 0 ? lengthChoice >> 3 : UInt64(body.count)
            let resigned = Self.binaryFile(metadata: metadata, body: body, bodyLength: bodyLength)
            guard let (decoded, _) = DiskEntryFormat.decode(resigned) else { return }
            Self.checkFreshness(decoded)
        }
    }

    @Test("files of the earlier JSON layout, with their JSON changed and signed again, are a miss or an entry whose freshness is sane")
    func resignedJSON() async throws {
        let body = Data("body".utf8)
        let json = """
            {"key":"https://example.test/a","variant":"","status":200,"reasonPhrase":"OK","headers":[["Cache-Control","max-age=60"],["Date","Sun, 06 Nov 1994 08:49:37 GMT"]],\
            "requestDate":-1e300,"responseDate":1e300,"storedAt":1,"tags":{"courier.fixedLifetime":"nan"},"bodyLength":4,\
            "bodySHA256":"\(SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined())"}
            """
        await propertyCheck(count: Property.cases(800), input: Property.hostile([json], favouring: "{}[]\":,0123456789e-")) { text in
            let metadata = Array(text.utf8)
            var file = Data(DiskEntryFormat.JSONLayout.magic)
            file.append(bigEndian: UInt32(metadata.count))
            file.append(bigEndian: UInt64(body.count))
            var hasher = SHA256()
            hasher.update(data: file)
            hasher.update(data: metadata)
            file.append(contentsOf: hasher.finalize())
            file.append(contentsOf: metadata)
            file.append(body)
            guard let (decoded, _) = DiskEntryFormat.decode(file) else { return }
            Self.checkFreshness(decoded)
        }
    }

    // MARK: Helpers

    /// Checks that the freshness of `entry` can be computed and served: an age that is a
    /// number and never negative, whatever its dates and fields say.
    static func checkFreshness(_ entry: CourierCacheEntry, sourceLocation: SourceLocation = #_sourceLocation) {
        for now in [Date(timeIntervalSince1970: 1_795_219_200), Date.distantFuture, Date.distantPast] {
            let freshness = Freshness(entry, now: now, heuristicLimit: 86_400)
            #expect(freshness.age >= 0, "age \(freshness.age)", sourceLocation: sourceLocation)
            #expect(freshness.remaining >= 0 && freshness.staleness >= 0, sourceLocation: sourceLocation)
        }
    }

    /// A binary-layout file holding `metadata` and `body`, with a valid digest.
    static func binaryFile(metadata: [UInt8], body: [UInt8], bodyLength: UInt64) -> Data {
        var file = Data(DiskEntryFormat.magic)
        file.append(bigEndian: UInt32(metadata.count))
        file.append(bigEndian: bodyLength)
        var hasher = SHA256()
        hasher.update(data: file)
        hasher.update(data: metadata)
        hasher.update(data: body)
        file.append(contentsOf: hasher.finalize())
        file.append(contentsOf: metadata)
        file.append(contentsOf: body)
        return file
    }

    /// Changes `metadata` the way damage or a hostile writer would: a length or count set to
    /// an extreme, bytes changed, cut or added.
    static func damage(_ metadata: inout [UInt8], _ rng: inout SplitMix) {
        let position = metadata.isEmpty ? 0 : Int(rng.next() % UInt64(metadata.count))
        switch rng.next() % 4 {
        case 0:
            // A 4-byte length or count: zero, one, huge or all ones.
            let value = [UInt32(0), 1, 7, 0x7FFF_FFFF, .max, UInt32(truncatingIfNeeded: rng.next())][Int(rng.next() % 6)]
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
            metadata.replaceSubrange(position..<min(metadata.count, position + 4), with: bytes)
        case 1:
            // An 8-byte integer: a status or a date's bits (NaN, infinity, extremes).
            let value = [UInt64.max, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7FF8_0000_0000_0001, 1 << 63, rng.next()][Int(rng.next() % 6)]
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
            metadata.replaceSubrange(position..<min(metadata.count, position + 8), with: bytes)
        case 2:
            metadata = Array(metadata.prefix(position))
        default:
            Property.mutate(&metadata, &rng)
        }
    }
}
