import Foundation

/// What a partial download needs to be continued, kept as JSON beside its partial file.
///
/// The bytes already on disk are the partial file's length, which is always right even after a
/// crash; ``bytesReceived`` records the count when the record was last written, for people
/// reading the file.
///
/// The record is written for its owner alone (mode 0600), and holds no secret in clear: the URL
/// is kept without its user, password, query and fragment, for people reading the file, and is
/// matched through its SHA-256 digest, so that a signed URL's token never reaches the disk.
struct ResumeRecord: Codable, Equatable {
    /// The URL the download was started for, without its user, password, query and fragment;
    /// in a record without ``urlDigest``, the whole URL.
    var url: String
    /// The SHA-256 digest of the whole URL, in hexadecimal: what a later download compares.
    var urlDigest: String? = nil
    /// The strong entity-tag of the representation, if it had one.
    var entityTag: String?
    /// Its `Last-Modified` date, used when there is no strong entity-tag.
    var lastModified: String?
    /// The bytes written when the record was last saved.
    var bytesReceived: Int64
    /// The file's whole length, when known.
    var totalBytes: Int64? = nil
    /// For a download into a folder, the file name chosen from the first response.
    var fileName: String?

    /// The `If-Range` value: the strong entity-tag, else the date; `nil` when neither exists,
    /// and the download cannot safely be continued.
    var validator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Reads the record at `url`; `nil` when it is absent, unreadable or not a regular file (a
    /// FIFO in its place is never waited on).
    static func load(from url: URL) -> ResumeRecord? {
        guard let data = try? POSIXFiles.contentsOfRegularFile(url.path) else { return nil }
        return try? JSONDecoder().decode(ResumeRecord.self, from: data)
    }

    /// Writes the record to `url`, replacing the old one in one step, readable by its owner alone.
    func save(to url: URL) throws(CourierError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try PrivateFiles.replaceFile(url.path, with: try encoder.encode(self))
        } catch {
            throw CourierError(
                .invalidDestination, "Could not write the resume record \(url.path): \(error). Check that the folder is writable.",
                underlyingError: error
            )
        }
    }
}

extension ResumeRecord {
    /// A record of a download of `requestURL`, holding its digest and a shown form without secrets.
    init(for requestURL: URL, entityTag: String?, lastModified: String?, bytesReceived: Int64, totalBytes: Int64? = nil, fileName: String?) {
        var shown = URLComponents(url: requestURL, resolvingAgainstBaseURL: false)
        shown?.user = nil
        shown?.password = nil
        shown?.query = nil
        shown?.fragment = nil
        self.init(
            url: shown?.string ?? "", urlDigest: Self.digest(of: requestURL), entityTag: entityTag, lastModified: lastModified,
            bytesReceived: bytesReceived, totalBytes: totalBytes, fileName: fileName
        )
    }

    /// Whether this record was written for a download of `requestURL`.
    func isRecord(of requestURL: URL) -> Bool {
        guard let urlDigest else { return url == requestURL.absoluteString }
        return urlDigest == Self.digest(of: requestURL)
    }

    private static func digest(of url: URL) -> String {
        Digest.sha256Hex(Data(url.absoluteString.utf8))
    }
}
