import Crypto
import Foundation

/// A digest the server announced for the whole file, checked before the file is kept.
///
/// Read from `Repr-Digest` (RFC 9530), `Digest` (RFC 3230) and, for a 200 whose body is the
/// whole file, `Content-MD5` (RFC 1864); SHA-256 and MD5 are understood, other algorithms are
/// ignored.
struct BodyDigest: Equatable {
    enum Algorithm: String {
        case sha256 = "sha-256"
        case md5
    }

    var algorithm: Algorithm
    var expected: Data

    /// The digests announced in `headers`; `isWholeFile` says whether the body was the whole
    /// file (so that `Content-MD5` applies).
    static func announced(in headers: Headers, isWholeFile: Bool) -> [BodyDigest] {
        var digests: [BodyDigest] = []
        for value in headers.values(for: "Repr-Digest") {
            for member in FieldList.elements(value) {
                let pair = member.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let algorithm = Algorithm(rawValue: pair[0].trimmingCharacters(in: .whitespaces).lowercased()) else { continue }
                let bytes = pair[1].trimmingCharacters(in: .whitespaces)
                guard bytes.count >= 2, bytes.hasPrefix(":"), bytes.hasSuffix(":"),
                    let data = Data(base64Encoded: String(bytes.dropFirst().dropLast()))
                else { continue }
                digests.append(BodyDigest(algorithm: algorithm, expected: data))
            }
        }
        for value in headers.values(for: "Digest") {
            for member in FieldList.elements(value) {
                let pair = member.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, let algorithm = Algorithm(rawValue: pair[0].trimmingCharacters(in: .whitespaces).lowercased()),
                    let data = Data(base64Encoded: pair[1].trimmingCharacters(in: .whitespaces))
                else { continue }
                digests.append(BodyDigest(algorithm: algorithm, expected: data))
            }
        }
        if isWholeFile, let value = headers["Content-MD5"], let data = Data(base64Encoded: value.trimmingCharacters(in: .whitespaces)) {
            digests.append(BodyDigest(algorithm: .md5, expected: data))
        }
        return digests
    }

    /// Checks every digest against the file at `url`, read in 1 MiB pieces.
    static func verify(_ digests: [BodyDigest], file url: URL) throws(CourierError) {
        guard !digests.isEmpty else { return }
        var sha256 = SHA256()
        var md5 = Insecure.MD5()
        let wantsSHA = digests.contains { $0.algorithm == .sha256 }
        let wantsMD5 = digests.contains { $0.algorithm == .md5 }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
                if wantsSHA { sha256.update(data: piece) }
                if wantsMD5 { md5.update(data: piece) }
            }
        } catch {
            throw CourierError(.invalidDestination, "Could not read back \(url.path) to check its digest: \(error).", underlyingError: error)
        }
        let computed: [Algorithm: Data] = [
            .sha256: wantsSHA ? Data(sha256.finalize()) : Data(),
            .md5: wantsMD5 ? Data(md5.finalize()) : Data(),
        ]
        for digest in digests where computed[digest.algorithm] != digest.expected {
            throw CourierError(
                .integrityCheckFailed,
                "The downloaded file does not match the \(digest.algorithm.rawValue) digest the server announced; it was discarded. Download it again; if this persists, the server or a proxy corrupts it."
            )
        }
    }
}
