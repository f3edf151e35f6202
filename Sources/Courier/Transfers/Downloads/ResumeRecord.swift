import Foundation

/// What a partial download needs to be continued, kept as JSON beside its partial file.
///
/// The bytes already on disk are the partial file's length, which is always right even after a
/// crash; ``bytesReceived`` records the count when the record was last written, for people
/// reading the file.
struct ResumeRecord: Codable, Equatable {
    /// The URL the download was started for.
    var url: String
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

    /// Writes the record to `url`, replacing the old one in one step.
    func save(to url: URL) throws(CourierError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw CourierError(
                .invalidDestination, "Could not write the resume record \(url.path): \(error). Check that the folder is writable.",
                underlyingError: error
            )
        }
    }
}
