import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

/// What a test puts at the path it gives an option.
enum PathThing: String, Sendable {
    case file, folder, fifo, socket, device
    /// A path whose folder does not exist.
    case inMissingFolder
    /// A path under a regular file, as if it were a folder.
    case underAFile

    /// Makes the thing inside `folder`; returns its path.
    func make(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("thing").path
        switch self {
        case .file: try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
        case .folder: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .fifo: try makeFIFO(path)
        case .socket: try makeSocketFile(path)
        case .device: try makeDevice(path)
        case .inMissingFolder: return folder.appendingPathComponent("missing/thing").path
        case .underAFile:
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            return path + "/inside"
        }
        return path
    }
}

/// A command line whose `option` is given a path of the wrong kind. In `arguments`, `URL` is
/// the server's URL, `BATCH` a batch file of one request to it (a regular file), `FOLDER` a
/// scratch folder and `PATH` the wrong path; the message starts with `option`, `PATH` in it
/// replaced by the path.
struct WrongPath: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let option: String
    let thing: PathThing

    var testDescription: String { "\(arguments.joined(separator: " ")) (\(thing.rawValue))" }

    static func cases(_ arguments: [String], _ option: String, _ things: [PathThing]) -> [WrongPath] {
        things.map { WrongPath(arguments: arguments, option: option, thing: $0) }
    }

    static let all: [WrongPath] =
        cases(["fetch", "URL", "-o", "PATH"], "-o", [.folder, .fifo, .socket, .inMissingFolder, .underAFile])
        + cases(["fetch", "URL", "--cache", "FOLDER", "-o", "PATH"], "-o", [.folder, .inMissingFolder])
        + cases(["download", "URL", "-o", "PATH"], "-o", [.folder, .fifo, .inMissingFolder])
        + cases(["download", "URL", "-o", "PATH", "--overwrite"], "-o", [.folder, .fifo])
        + cases(["download", "URL", "--dir", "PATH"], "--dir", [.file, .fifo, .inMissingFolder])
        + cases(["fetch", "URL", "--cookie-jar", "PATH"], "--cookie-jar", [.folder, .fifo, .socket, .inMissingFolder, .underAFile])
        + cases(["download", "URL", "--dir", "FOLDER", "--cookie-jar", "PATH"], "--cookie-jar", [.fifo, .inMissingFolder])
        + cases(["batch", "BATCH", "--cookie-jar", "PATH"], "--cookie-jar", [.fifo, .folder])
        + cases(["fetch", "URL", "-b", "PATH"], "-b PATH", [.folder, .fifo, .socket])
        + cases(["fetch", "URL", "--cookie-json", "PATH"], "--cookie-json", [.folder, .fifo])
        + cases(["fetch", "URL", "--netrc-file", "PATH"], "--netrc-file PATH", [.folder, .fifo, .socket])
        + cases(["fetch", "URL", "--cache", "PATH"], "--cache", [.file, .fifo, .socket, .underAFile])
        + cases(["cache", "stats", "--cache", "PATH"], "--cache", [.file, .fifo])
        + cases(["cache", "clear", "--cache", "PATH"], "--cache", [.fifo])
        + cases(["fetch", "URL", "--data", "x", "--durable", "--queue", "PATH"], "--queue", [.folder, .fifo, .socket, .underAFile])
        + cases(["queue", "list", "--queue", "PATH"], "--queue", [.folder, .fifo])
        + cases(["queue", "run", "--queue", "PATH", "--deadline", "60"], "--queue", [.fifo, .socket])
        + cases(["queue", "drop", "some-id", "--queue", "PATH"], "--queue", [.fifo])
        + inputs

    /// Device files, which only root can make.
    static let devices: [WrongPath] =
        cases(["download", "URL", "-o", "PATH", "--overwrite"], "-o", [.device])
        + cases(["fetch", "URL", "--cookie-jar", "PATH"], "--cookie-jar", [.device])
        + cases(["fetch", "URL", "--data", "x", "--durable", "--queue", "PATH"], "--queue", [.device])
        + cases(["fetch", "URL", "--data", "@PATH"], "--data @PATH", [.device])
        + cases(["batch", "PATH"], "PATH", [.device])
        + cases(["fetch", "URL", "--cacert", "PATH"], "--cacert PATH", [.device])
}

@Suite("courier: the paths a command reads, writes or keeps its state in are checked before anything is sent")
struct PathCheckTests {
    @Test("A path of the wrong kind is refused with curl's status, naming the option and the path; nothing is sent or replaced", arguments: WrongPath.all)
    func wrongPathsAreRefused(_ wrong: WrongPath) async throws {
        try await Self.expectRefused(wrong)
    }

    @Test("A device is refused like any path of the wrong kind", .enabled(if: canMakeDevices, "only root can make a device file"), arguments: WrongPath.devices)
    func devicesAreRefused(_ wrong: WrongPath) async throws {
        try await Self.expectRefused(wrong)
    }

    /// `curl -s -o /dev/null -w '%{http_code}' URL`: fetch writes the body into the device as
    /// it is, and leaves the device in place (a copy of /dev/null here, never the real one).
    @Test("fetch -o DEVICE writes into the device and leaves it a device", .enabled(if: canMakeDevices, "only root can make a device file"))
    func fetchWritesIntoADevice() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let device = try PathThing.device.make(in: folder)
        try await withServer { server in
            let run = await courier("fetch", "-s", "-o", device, "-w", "%{http_code}", server.url("/bytes/100").absoluteString)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "200")
            #expect(PathCheck.isCharacterDevice(device))
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left == ["thing"], "no working file is left beside it")
        }
    }

    /// curl's status for a path its option cannot use: a file to write 23, a file to read 26,
    /// a CA file 77, a client certificate or key 58; the cache and the queue are usage errors.
    static func expectedStatus(of option: String) -> courier.ExitStatus {
        let name = option.split(separator: " ").first.map(String.init) ?? option
        switch name {
        case "-o", "-O", "--dir", "--cookie-jar", "--cookie-json": return .writeError
        case "--cacert": return .caCertificateFile
        case "--cert", "--key", "--p12": return .localCertificate
        case "--cache", "--queue": return .invalidInput
        default: return .readError
        }
    }

    static func expectRefused(_ wrong: WrongPath) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try wrong.thing.make(in: folder)
        let before = PathCheck.kind(of: path)
        // Were a FIFO opened for a blocking read, this writer would end the wait with an empty
        // file, and the request it let through would fail the test instead of hanging it.
        let unblocker = wrong.thing == .fifo ? Task.detached { await keepOpeningForWriting(path) } : nil
        defer { unblocker?.cancel() }
        try await withServer { server in
            let url = server.url("/get").absoluteString
            let batch = folder.appendingPathComponent("requests.json")
            try Data("[{\"url\": \"\(url)\"}]".utf8).write(to: batch)
            let replacements = ["URL": url, "BATCH": batch.path, "FOLDER": folder.path, "PATH": path]
            let arguments = wrong.arguments.map { argument in
                replacements.reduce(argument) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
            }
            let run = await courier(arguments)
            let named = wrong.option.replacingOccurrences(of: "PATH", with: path)
            #expect(run.status == expectedStatus(of: wrong.option).rawValue, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: \(named)") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(path), "\(run.stderr)")
            #expect(server.receivedRequests.isEmpty, "a request reached the server")
            #expect(PathCheck.kind(of: path) == before, "what was at the path changed")
        }
    }
}
