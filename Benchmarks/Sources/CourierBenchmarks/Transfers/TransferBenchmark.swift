import Foundation

/// A 1 GiB download and a 1 GiB multipart upload, each through the `courier` tool and through
/// `curl`, run in turn as separate processes against `FileServer` in a child process. Reports
/// throughput, CPU time and peak resident memory (from `wait4`), medians over rounds, and
/// Courier's throughput as a ratio of curl's, taken pair by pair.
struct TransferBenchmark {
    var megabytes: Int
    var rounds: Int
    var courier: String

    func run() throws {
        try requireExecutable(courier)
        guard let curl = executablePath("curl") else { throw HarnessError("curl is not on PATH") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let payload = folder + "/payload.bin"
        let bytes = megabytes * 1_048_576
        try Self.writePayload(to: payload, megabytes: megabytes)

        let server = try ServerProcess.launch(arguments: ["--serve-files", folder])
        defer { server.stop() }
        let fileURL = server.url("/files/payload.bin").absoluteString
        let uploadURL = server.url("/upload").absoluteString
        let received = folder + "/received.bin"

        print("Transfers of \(megabytes) MiB over loopback, \(rounds) rounds after a warm-up; medians.")
        print("")
        try compare(
            title: "download to a file",
            bytes: bytes,
            courier: [courier, "download", fileURL, "-o", received, "--overwrite"],
            peer: ("curl -o", [curl, "-s", "-o", received, fileURL]),
            check: {
                let size = (try FileManager.default.attributesOfItem(atPath: received)[.size] as? Int) ?? -1
                try? FileManager.default.removeItem(atPath: received)
                guard size == bytes else { throw HarnessError("the downloaded file has \(size) bytes, not \(bytes)") }
            }
        )
        try compare(
            title: "multipart upload of a file",
            bytes: bytes,
            courier: [courier, "fetch", uploadURL, "--file", "payload=@\(payload)", "--fail"],
            peer: ("curl -F", [curl, "-s", "-f", "-o", "/dev/null", "-F", "payload=@\(payload)", uploadURL]),
            check: {}
        )
    }

    private func compare(
        title: String, bytes: Int, courier: [String], peer: (name: String, arguments: [String]), check: () throws -> Void
    ) throws {
        var mine: [ChildRun] = []
        var theirs: [ChildRun] = []
        for round in 0...rounds {
            for (arguments, isCourier) in [(courier, true), (peer.arguments, false)] {
                let run = try ChildRun.run(arguments)
                guard run.exitStatus == 0 else {
                    throw HarnessError("\(arguments.prefix(3).joined(separator: " ")) … exited with status \(run.exitStatus)")
                }
                try check()
                if round > 0 {
                    if isCourier { mine.append(run) } else { theirs.append(run) }
                }
            }
        }
        let mebibytes = Double(bytes) / 1_048_576
        func row(_ name: String, _ runs: [ChildRun]) {
            let rate = median(runs.map { mebibytes / $0.wallSeconds })
            let cpu = median(runs.map(\.cpuSeconds))
            let peak = median(runs.map(\.peakMiB))
            print("| \(title) | \(name) | \(format(rate)) | \(format(cpu, digits: 2)) | \(format(peak)) |")
        }
        print("| transfer | client | MiB/s | CPU s | peak RSS MiB |")
        print("|---|---|---|---|---|")
        row("courier", mine)
        row(peer.name, theirs)
        let ratios = zip(mine, theirs).map { $1.wallSeconds / $0.wallSeconds }
        let spread = ratios.sorted().map { format($0, digits: 2) }.joined(separator: ", ")
        print("Courier's throughput / \(peer.name)'s, median of pairs: \(format(median(ratios), digits: 2))× (pairs: \(spread))")
        print("")
    }

    /// Writes `megabytes` MiB of pseudo-random bytes (each MiB different) to `path`.
    static func writePayload(to path: String, megabytes: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw HarnessError("could not create \(path)")
        }
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var block = [UInt64](repeating: 0, count: 131_072)
        for index in block.indices { block[index] = generator.next() }
        for mebibyte in 0..<megabytes {
            block[mebibyte % block.count] = generator.next()
            try block.withUnsafeBytes { try handle.write(contentsOf: $0) }
        }
    }
}

func format(_ value: Double, digits: Int = 0) -> String {
    String(format: "%.\(digits)f", value)
}
