import Courier
import CourierTesting
import Crypto
import Foundation

/// An entry whose body says what it is (see ``SelfDescribingBody``); dates fixed unless given.
func sampleEntry(
    key: String, variant: String = "", serial: Int = 1, length: Int = 100, date: Date = Date(timeIntervalSince1970: 1_700_000_000.25),
    tags: [String: String] = [:]
) -> CourierCacheEntry {
    CourierCacheEntry(
        key: key, variant: variant, status: 200, reasonPhrase: "OK",
        headers: ["Content-Type": "application/octet-stream", "ETag": "\"\(serial)\""],
        body: SelfDescribingBody.make(key: key, variant: variant, serial: serial, length: length),
        requestDate: date, responseDate: date.addingTimeInterval(0.125), tags: tags
    )
}

/// The hexadecimal SHA-256 of `text`'s UTF-8 bytes.
func sha256Hex(_ text: String) -> String {
    SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
}

/// Where a disk cache in `folder` keeps the entry for `key` and `variant`, by its documented layout.
func entryFile(in folder: URL, key: String, variant: String = "") -> URL {
    folder.appendingPathComponent("entries").appendingPathComponent(sha256Hex(key)).appendingPathComponent(sha256Hex(variant))
}

/// Every file under `folder`, recursively, as paths relative to it.
func allFiles(in folder: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    var paths: [String] = []
    while let path = enumerator?.nextObject() as? String { paths.append(path) }
    return paths.sorted()
}

/// The permission bits of the file at `url`.
func permissions(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Runs `body` with a disk cache in a new temporary folder.
func withDiskCache<T>(maximumBytes: Int = DiskCacheStorage.defaultMaximumBytes, _ body: (DiskCacheStorage, URL) async throws -> T) async throws -> T {
    try await withTemporaryFolder { folder in
        let cache = folder.appendingPathComponent("cache")
        return try await body(try DiskCacheStorage(directory: cache, maximumBytes: maximumBytes), cache)
    }
}
