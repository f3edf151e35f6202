import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierURLSession

/// Stands in for the request objects URLSession archives beside its fields: a class the reader
/// does not know, which it must step over.
final class ArchivedURLRequestStandIn: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    init?(coder: NSCoder) {}
    func encode(with coder: NSCoder) { coder.encode("GET", forKey: "method") }
}

/// Resume data as URLSession writes it since iOS 12: a keyed archive of the fields, with the
/// requests archived beside them.
private func keyedArchive(_ fields: [String: Any]) -> Data {
    let dictionary = NSMutableDictionary()
    for (key, value) in fields { dictionary[key] = value }
    dictionary["NSURLSessionResumeCurrentRequest"] = ArchivedURLRequestStandIn()
    dictionary["NSURLSessionResumeOriginalRequest"] = ArchivedURLRequestStandIn()
    let archiver = NSKeyedArchiver(requiringSecureCoding: true)
    archiver.setClassName("NSURLRequest", for: ArchivedURLRequestStandIn.self)
    archiver.encode(dictionary, forKey: NSKeyedArchiveRootObjectKey)
    archiver.finishEncoding()
    return archiver.encodedData
}

@Suite("URLSession's resume data, continued by Courier")
struct URLSessionResumeDataTests {
    static let name = "CFNetworkDownload_courier.tmp"

    /// Writes URLSession's temporary file: the first `count` bytes of `/range/400000?seed=2`,
    /// and `extra` bytes after them that the resume data does not vouch for.
    static func temporaryFile(in folder: URL, count: Int, extra: Int = 0) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(TestServer.bytes(count: count, seed: 2) + [UInt8](repeating: 0xEE, count: extra)).write(to: file)
        return file
    }

    @Test func aKeyedArchiveIsReadAndItsBytesAreContinuedFromTheServer() async throws {
        try await withDownloadSetup { folder, server, client in
            let temporary = folder.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let source = try Self.temporaryFile(in: temporary, count: 150_000, extra: 99)
            let url = server.url("/range/400000?seed=2")
            let data = keyedArchive([
                "NSURLSessionDownloadURL": url.absoluteString, "NSURLSessionResumeBytesReceived": 150_000,
                "NSURLSessionResumeEntityTag": "\"range-400000-2\"", "NSURLSessionResumeInfoTempFileName": Self.name,
                "NSURLSessionResumeInfoVersion": 2,
            ])
            #expect(data.starts(with: Array("bplist00".utf8)))
            let resumeData = try URLSessionResumeData(data)
            #expect(resumeData.url == url)
            #expect(resumeData.bytesReceived == 150_000)
            #expect(resumeData.entityTag == "\"range-400000-2\"")
            #expect(resumeData.temporaryFileName == Self.name)

            let destination = folder.appendingPathComponent("continued.bin")
            try resumeData.adopt(into: .file(destination), temporaryFolder: temporary)
            #expect(!FileManager.default.fileExists(atPath: source.path))
            let working = DownloadDestination.file(destination).workingFiles(for: url)
            #expect(PartialFile.length(of: working.partial) == 150_000)
            #expect(PrivateFiles.permissions(of: working.partial.path) == 0o600)

            let result = try await client.download(CourierRequest<Void>(path: url.absoluteString), to: .file(destination))
            #expect(result.response.status == 206)
            let sent = try #require(server.receivedRequests.last)
            #expect(sent.header("Range") == "bytes=150000-")
            #expect(sent.header("If-Range") == "\"range-400000-2\"")
            #expect(try sha256(ofFileAt: destination) == sha256(ofGenerated: 400_000, seed: 2))
        }
    }

    @Test func theOlderXMLFormAndABinaryPlainDictionaryAreRead() throws {
        let fields: [String: Any] = [
            "NSURLSessionDownloadURL": "https://files.example/a.bin", "NSURLSessionResumeBytesReceived": 42,
            "NSURLSessionResumeServerDownloadDate": "Wed, 21 Oct 2015 07:28:00 GMT",
            "NSURLSessionResumeInfoLocalPath": "/private/var/mobile/tmp/CFNetworkDownload_old.tmp", "NSURLSessionResumeInfoVersion": 1,
        ]
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let data = try PropertyListSerialization.data(fromPropertyList: fields, format: format, options: 0)
            let resumeData = try URLSessionResumeData(data)
            #expect(resumeData.url.absoluteString == "https://files.example/a.bin")
            #expect(resumeData.bytesReceived == 42)
            #expect(resumeData.entityTag == nil)
            #expect(resumeData.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
            // Only the name is taken: the file is looked for in the temporary folder given.
            #expect(resumeData.temporaryFileName == "CFNetworkDownload_old.tmp")
        }
    }

    @Test func resumeDataThatCannotBeContinuedSafelyIsRefusedAndTheFileKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.temporaryFile(in: folder, count: 1000)
        let destination = DownloadDestination.file(folder.appendingPathComponent("out.bin"))
        let base: [String: Any] = [
            "NSURLSessionDownloadURL": "http://127.0.0.1:9/f", "NSURLSessionResumeBytesReceived": 1000, "NSURLSessionResumeInfoTempFileName": Self.name,
        ]
        // No validator: continuing could splice two versions of the file.
        let weak = try URLSessionResumeData(keyedArchive(base.merging(["NSURLSessionResumeEntityTag": "W/\"w\""]) { $1 }))
        #expect((try? weak.adopt(into: destination, temporaryFolder: folder)) == nil)
        let untagged = try URLSessionResumeData(keyedArchive(base))
        let error = #expect(throws: CourierError.self) { try untagged.adopt(into: destination, temporaryFolder: folder) }
        #expect(error?.kind == .resumeMismatch)
        // More bytes claimed than the file holds.
        let long = try URLSessionResumeData(keyedArchive(base.merging(["NSURLSessionResumeEntityTag": "\"t\"", "NSURLSessionResumeBytesReceived": 1001]) { $1 }))
        #expect((#expect(throws: CourierError.self) { try long.adopt(into: destination, temporaryFolder: folder) })?.kind == .resumeMismatch)
        #expect(PartialFile.length(of: source) == 1000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [Self.name])

        // A name that leaves the folder, no URL, no count, a negative count, not a property list.
        for fields in [
            base.merging(["NSURLSessionResumeInfoTempFileName": "../escape.tmp"]) { $1 },
            base.merging(["NSURLSessionResumeInfoTempFileName": ".."]) { $1 },
            base.filter { $0.key != "NSURLSessionDownloadURL" },
            base.filter { $0.key != "NSURLSessionResumeBytesReceived" },
            base.merging(["NSURLSessionResumeBytesReceived": -1]) { $1 },
            base.merging(["NSURLSessionDownloadURL": 7]) { $1 },
            base.merging(["NSURLSessionDownloadURL": "file:///etc/passwd"]) { $1 },
        ] {
            let error = #expect(throws: CourierError.self) { try URLSessionResumeData(keyedArchive(fields)) }
            #expect(error?.kind == .resumeMismatch)
        }
        for data in [Data(), Data("not a plist".utf8), Data("bplist00".utf8), Data(count: URLSessionResumeData.maximumSize + 1)] {
            #expect((#expect(throws: CourierError.self) { try URLSessionResumeData(data) })?.kind == .resumeMismatch)
        }
    }

    @Test func damagedBinaryListsAreRefusedWithoutATrap() throws {
        let valid = keyedArchive([
            "NSURLSessionDownloadURL": "http://127.0.0.1:9/f", "NSURLSessionResumeBytesReceived": 1000, "NSURLSessionResumeInfoTempFileName": Self.name,
            "NSURLSessionResumeEntityTag": "\"t\"",
        ])
        #expect(BinaryPropertyList.read(valid) != nil)
        var random = SplitMix(seed: 7)
        var refused = 0
        for round in 0..<3000 {
            var bytes = [UInt8](valid)
            switch round % 3 {
            case 0:
                // Cut short.
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 1:
                // A few bytes changed anywhere, the trailer's counts and offsets included.
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            default:
                // One byte of the trailer set to an extreme.
                bytes[bytes.count - Int.random(in: 1...26, using: &random)] = [0x00, 0x7F, 0xFF].randomElement(using: &random)!
            }
            // Reading ends with a value or nil, never a trap or a hang; resume data answers
            // with a typed error or fields.
            _ = BinaryPropertyList.read(Data(bytes))
            do { _ = try URLSessionResumeData(Data(bytes)) } catch { refused += 1 }
        }
        #expect(refused > 2000)

        // The older XML form, damaged the same ways.
        let xml = try PropertyListSerialization.data(
            fromPropertyList: ["NSURLSessionDownloadURL": "http://127.0.0.1:9/f", "NSURLSessionResumeBytesReceived": 1000, "NSURLSessionResumeInfoTempFileName": Self.name],
            format: .xml, options: 0
        )
        #expect(try URLSessionResumeData(xml).bytesReceived == 1000)
        for round in 0..<600 {
            var bytes = [UInt8](xml)
            if round % 2 == 0 {
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            } else {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? URLSessionResumeData(Data(bytes))
        }
    }

    @Test func anObjectReferredToManyTimesIsReadOnce() throws {
        // An array of 100,000 references to one string of 64 KiB: 165 KB of list. Built again
        // at each reference, it would be 6.5 GB of strings.
        let count = 100_000
        var bytes = Array("bplist00".utf8)
        let arrayOffset = bytes.count
        bytes += [0xAF, 0x12] + [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        bytes += [UInt8](repeating: 1, count: count)
        let stringOffset = bytes.count
        bytes += [0x5F, 0x12, 0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0x61, count: 1 << 16)
        let table = bytes.count
        for offset in [arrayOffset, stringOffset] {
            bytes += (0..<4).reversed().map { UInt8((offset >> ($0 * 8)) & 0xFF) }
        }
        bytes += [0, 0, 0, 0, 0, 0, 4, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8)
        bytes += (0..<8).reversed().map { UInt8((table >> ($0 * 8)) & 0xFF) }
        guard case .array(let values)? = BinaryPropertyList.read(Data(bytes)) else {
            Issue.record("the list was not read")
            return
        }
        #expect(values.count == count)
        #expect(values.last == .string(String(repeating: "a", count: 1 << 16)))
    }

    @Test func objectsThatReferToEachOtherEndTheReadInsteadOfLooping() {
        // A binary list by hand: object 0 is an array holding itself.
        var bytes = Array("bplist00".utf8)
        bytes += [0xA1, 0x00]
        let table = bytes.count
        bytes += [0x08]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        #expect(BinaryPropertyList.read(Data(bytes)) == nil)
        // Without the cycle, the same list is read.
        bytes[9] = 0x00
        bytes[8] = 0xA0
        #expect(BinaryPropertyList.read(Data(bytes)) == .array([]))
    }
}
