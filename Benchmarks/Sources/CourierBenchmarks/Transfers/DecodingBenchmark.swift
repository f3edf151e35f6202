import CourierTesting
import Foundation

/// Decoding throughput: a text-like body of `megabytes` MiB, compressed once in br (quality 5)
/// and zstd (level 3), fetched through the `courier` tool from `FileServer` in a child process
/// and undone on the way; beside it, `brotli -d` and `zstd -d` undoing the same files from disk
/// (the decoders alone, no network), and `curl --compressed` fetching and undoing them over the
/// same loopback. Whole processes, medians over rounds, throughput in MiB of decoded body per
/// second of wall time.
struct DecodingBenchmark {
    var megabytes: Int
    var rounds: Int
    var courier: String

    func run() throws {
        try requireExecutable(courier)
        guard let curl = executablePath("curl"), let brotli = executablePath("brotli"), let zstd = executablePath("zstd") else {
            throw HarnessError("curl, brotli and zstd must be on PATH (Debian: apt-get install curl brotli zstd)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-decoding-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files: [(coding: SystemCompression, name: String, decoder: [String])] = [
            (.brotli, "payload.br", [brotli, "-d", "-c"]),
            (.zstd, "payload.zst", [zstd, "-d", "-c", "-q"]),
        ]
        // Made by a child process: a process spawned from this one would otherwise count this
        // one's peak resident memory as its own (the kernel keeps the high-water mark across exec).
        let writer = try ChildRun.run([CommandLine.arguments[0], Self.filesFlag, folder, String(megabytes)], keepingOutput: true)
        guard writer.exitStatus == 0 else { throw HarnessError("the files could not be made (status \(writer.exitStatus))") }
        let decodedSize = megabytes * 1_048_576
        let server = try ServerProcess.launch(arguments: ["--serve-files", folder])
        defer { server.stop() }
        print("Decoding \(megabytes) MiB over loopback and from disk, \(rounds) rounds after a warm-up; medians.")
        print("")
        print("| coding | client | MiB/s | CPU s | peak RSS MiB |")
        print("|---|---|---|---|---|")
        for file in files {
            let url = server.url("/files/\(file.name)").absoluteString
            // Once, to a file: the body arrives whole and undone.
            let check = folder + "/check.bin"
            let checked = try ChildRun.run([courier, "fetch", url, "-o", check])
            let size = (try? FileManager.default.attributesOfItem(atPath: check)[.size] as? Int) ?? -1
            try? FileManager.default.removeItem(atPath: check)
            guard checked.exitStatus == 0, size == decodedSize else {
                throw HarnessError("courier fetch of \(file.name) exited with \(checked.exitStatus) and wrote \(size) bytes, not \(decodedSize)")
            }
            let contenders: [(String, [String])] = [
                ("courier fetch", [courier, "fetch", url]),
                ("curl --compressed", [curl, "-s", "--compressed", url]),
                (file.decoder.first.map { URL(fileURLWithPath: $0).lastPathComponent + " -d (from disk)" } ?? "", file.decoder + [folder + "/" + file.name]),
            ]
            var runs = Array(repeating: [ChildRun](), count: contenders.count)
            for round in 0...rounds {
                for (index, contender) in contenders.enumerated() {
                    let run = try ChildRun.run(contender.1)
                    guard run.exitStatus == 0 else { throw HarnessError("\(contender.0) exited with status \(run.exitStatus)") }
                    if round > 0 { runs[index].append(run) }
                }
            }
            let mebibytes = Double(decodedSize) / 1_048_576
            for (index, contender) in contenders.enumerated() {
                let rate = median(runs[index].map { mebibytes / $0.wallSeconds })
                print("| \(file.name) | \(contender.0) | \(format(rate)) | \(format(median(runs[index].map(\.cpuSeconds)), digits: 2)) | \(format(median(runs[index].map(\.peakMiB)))) |")
            }
            for index in 1..<contenders.count {
                let ratios = zip(runs[0], runs[index]).map { $1.wallSeconds / $0.wallSeconds }
                print("| \(file.name) | courier / \(contenders[index].0), median of pairs | \(format(median(ratios), digits: 2))× | | |")
            }
        }
    }

    /// The flag of the child process that makes the compressed files.
    static let filesFlag = "--decoding-files"

    /// Child side: writes `megabytes` MiB of ``textLike(megabytes:)`` to `folder`, as
    /// `payload.br` and `payload.zst`.
    static func writeFiles(folder: String, megabytes: Int) throws {
        let text = textLike(megabytes: megabytes)
        for (coding, path) in [(SystemCompression.brotli, folder + "/payload.br"), (.zstd, folder + "/payload.zst")] {
            let compressed = try coding.compress(text, level: coding == .brotli ? 5 : 3)
            try Data(compressed).write(to: URL(fileURLWithPath: path))
            print("\(URL(fileURLWithPath: path).lastPathComponent): \(megabytes) MiB of text-like bytes in \(format(Double(compressed.count) / 1_048_576, digits: 1)) MiB")
        }
    }

    /// `megabytes` MiB of words from a small vocabulary, picked by a fixed pseudo-random
    /// sequence: text that compresses about as well as logs or JSON do.
    static func textLike(megabytes: Int) -> [UInt8] {
        let words = [
            "request", "response", "cache", "header", "body", "status", "200", "404", "timeout", "retry", "client", "server",
            "stream", "bytes", "gzip", "brotli", "zstd", "window", "frame", "{", "}", "\"id\":", "\"name\":", "true", "false", "null",
        ].map { Array($0.utf8) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var text: [UInt8] = []
        text.reserveCapacity(megabytes * 1_048_576 + 32)
        while text.count < megabytes * 1_048_576 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            text += words[Int(state >> 33) % words.count]
            text.append(state & 0x1F == 0 ? 0x0A : 0x20)
            if state & 0x3FF == 7 { text += Array(String(state >> 40).utf8) }
        }
        text.removeLast(text.count - megabytes * 1_048_576)
        return text
    }
}
