import Courier
import Foundation

/// What URLSession hands over when a download stops part-way, read on any platform, so that
/// Courier can continue the download on any transport.
///
/// URLSession gives resume data from `cancel(byProducingResumeData:)`, and in the error that
/// ends a download task, under `NSURLSessionDownloadTaskResumeData` in its `userInfo`: a
/// property list, plain or keyed-archived, naming the URL, the bytes received, the validator
/// and the temporary file that holds the bytes. ``adopt(into:temporaryFolder:)`` makes that file
/// the partial download of a ``DownloadDestination``; the next
/// `CourierClient.download(_:to:options:)` to it then asks only for the rest, with `If-Range`.
///
/// ```swift
/// func continueDownload(from data: Data, to file: URL, with client: CourierClient) async throws -> DownloadResult {
///     let resumeData = try URLSessionResumeData(data)
///     try resumeData.adopt(into: .file(file))
///     return try await client.download(CourierRequest<Void>(path: resumeData.url.absoluteString), to: .file(file))
/// }
/// ```
public struct URLSessionResumeData: Sendable, Equatable {
    /// The URL being downloaded.
    public var url: URL
    /// The bytes URLSession had received into its temporary file.
    public var bytesReceived: Int64
    /// The representation's entity-tag, when the server sent one.
    public var entityTag: String?
    /// The representation's `Last-Modified` date, as the server wrote it, when it sent one.
    public var lastModified: String?
    /// The name of URLSession's temporary file that holds the bytes, in its temporary folder.
    public var temporaryFileName: String

    /// The longest resume data read: real resume data is a few kilobytes.
    public static let maximumSize = 1 << 20

    /// Reads resume data: an XML or binary property list, plain or keyed-archived.
    ///
    /// - Throws: ``CourierError/Kind/resumeMismatch`` when `data` is not resume data, or is
    ///   without an http or https URL, a byte count or a temporary file name, or names a file
    ///   outside the temporary folder.
    public init(_ data: Data) throws(CourierError) {
        func unreadable(_ reason: String) -> CourierError {
            CourierError(.resumeMismatch, "The resume data could not be read: \(reason). Download again from the start.")
        }
        guard data.count <= Self.maximumSize else { throw unreadable("it is larger than \(Self.maximumSize) bytes") }
        guard let fields = ResumeDataFields.read(data) else { throw unreadable("it is not a property list of resume data") }
        guard let text = fields.strings["NSURLSessionDownloadURL"], let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw unreadable("it names no http or https URL")
        }
        guard let bytes = fields.integers["NSURLSessionResumeBytesReceived"], bytes >= 0 else { throw unreadable("it gives no byte count") }
        let named = fields.strings["NSURLSessionResumeInfoTempFileName"] ?? fields.strings["NSURLSessionResumeInfoLocalPath"].map { ($0 as NSString).lastPathComponent }
        guard let name = named, !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw unreadable("it names no temporary file inside the temporary folder")
        }
        self.url = url
        self.bytesReceived = bytes
        self.entityTag = fields.strings["NSURLSessionResumeEntityTag"]
        self.lastModified = fields.strings["NSURLSessionResumeServerDownloadDate"]
        self.temporaryFileName = name
    }

    /// Moves the bytes URLSession kept into Courier's partial download for `destination`, with
    /// a resume record, so that the next download of ``url`` to it continues them.
    ///
    /// - Parameter temporaryFolder: Where URLSession kept its file: the process's temporary
    ///   folder, unless the session was configured otherwise.
    /// - Throws: ``CourierError/Kind/resumeMismatch`` when the data has no strong entity-tag or
    ///   date to continue with, or the file is missing or short;
    ///   ``CourierError/Kind/invalidDestination`` when the destination's folder cannot take it.
    public func adopt(into destination: DownloadDestination, temporaryFolder: URL = FileManager.default.temporaryDirectory) throws(CourierError) {
        try destination.adoptPartialDownload(
            of: url, from: temporaryFolder.appendingPathComponent(temporaryFileName), bytes: bytesReceived, entityTag: entityTag,
            lastModified: lastModified
        )
    }
}

/// The text and number fields of resume data, from whichever property list form it takes.
struct ResumeDataFields {
    var strings: [String: String] = [:]
    var integers: [String: Int64] = [:]

    /// The fields of `data`; `nil` when it is neither a plain nor a keyed-archived dictionary.
    static func read(_ data: Data) -> ResumeDataFields? {
        if data.starts(with: Array("bplist".utf8)) {
            guard case .dictionary(let root)? = BinaryPropertyList.read(data) else { return nil }
            return root["$archiver"] == .string("NSKeyedArchiver") ? unarchived(root) : fields(root)
        }
        // The older XML form, a plain dictionary.
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else { return nil }
        var result = ResumeDataFields()
        for (key, value) in plist {
            if let text = value as? String {
                result.strings[key] = text
            } else if let number = value as? Int {
                result.integers[key] = Int64(number)
            }
        }
        return result
    }

    private static func fields(_ dictionary: [String: BinaryPropertyList.Value]) -> ResumeDataFields {
        var result = ResumeDataFields()
        for (key, value) in dictionary {
            switch value {
            case .string(let text): result.strings[key] = text
            case .integer(let number): result.integers[key] = number
            default: break
            }
        }
        return result
    }

    /// The root dictionary of a keyed archive: `$top.root` names an object of `$objects` whose
    /// `NS.keys` and `NS.objects` name its keys and values, also in `$objects`.
    private static func unarchived(_ archive: [String: BinaryPropertyList.Value]) -> ResumeDataFields? {
        guard case .array(let objects)? = archive["$objects"], case .dictionary(let top)? = archive["$top"], case .uid(let rootIndex)? = top["root"],
            objects.indices.contains(rootIndex), case .dictionary(let root) = objects[rootIndex],
            case .array(let keys)? = root["NS.keys"], case .array(let values)? = root["NS.objects"], keys.count == values.count
        else { return nil }
        var resolved: [String: BinaryPropertyList.Value] = [:]
        for (key, value) in zip(keys, values) {
            guard case .uid(let keyIndex) = key, case .uid(let valueIndex) = value, objects.indices.contains(keyIndex), objects.indices.contains(valueIndex),
                case .string(let name) = objects[keyIndex]
            else { return nil }
            resolved[name] = objects[valueIndex]
        }
        return fields(resolved)
    }
}
