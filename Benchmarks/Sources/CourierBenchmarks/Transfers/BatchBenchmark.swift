import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// `courier batch` as a whole process against a raw AsyncHTTPClient process that does the same
/// job: read the same JSON file of N GETs with distinct URLs, send them N at a time at the same
/// concurrency over keep-alive, and print one line per request in the file's order. CPU per
/// request includes start-up, reading the file and the report, from the kernel's accounting of
/// each finished child (`wait4`); the contenders run in turn, in reverse order every other round.
struct BatchBenchmark {
    var requests: Int
    var concurrency: Int
    var rounds: Int
    var courier: String

    /// The flag that makes `courier-bench` the raw AsyncHTTPClient contender: `FLAG FILE N API`.
    static let rawFlag = "--raw-batch"

    func run() throws {
        try requireExecutable(courier)
        let server = try ServerProcess.launch()
        defer { server.stop() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-batch-\(getpid()).json").path
        let items = (0..<requests).map { ["url": server.url("/bytes/100?r=\($0)").absoluteString] }
        try JSONSerialization.data(withJSONObject: items).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }

        let bench = CommandLine.arguments[0]
        let contenders: [(name: String, arguments: [String])] = [
            ("courier batch", [courier, "batch", file, "--concurrency", "\(concurrency)"]),
            ("AsyncHTTPClient async/await", [bench, Self.rawFlag, file, "\(concurrency)", "async"]),
            ("AsyncHTTPClient EventLoopFuture", [bench, Self.rawFlag, file, "\(concurrency)", "futures"]),
        ]
        var runs: [[ChildRun]] = Array(repeating: [], count: contenders.count)
        for round in 0...rounds {
            let order = round % 2 == 1 ? Array(contenders.indices.reversed()) : Array(contenders.indices)
            for index in order {
                let run = try ChildRun.run(contenders[index].arguments)
                guard run.exitStatus == 0 else {
                    throw HarnessError("\(contenders[index].name) exited with status \(run.exitStatus)")
                }
                if round > 0 { runs[index].append(run) }
            }
        }
        print("\(requests) GETs of 100 bytes from a JSON file, \(concurrency) at a time, one report line each; whole processes, \(rounds) rounds, medians")
        print("| contender | wall s | CPU µs/request | peak RSS MiB | CPU / courier batch's |")
        print("|---|---|---|---|---|")
        for (index, contender) in contenders.enumerated() {
            let cpu = median(runs[index].map { $0.cpuSeconds * 1e6 / Double(requests) })
            let ratio = median(zip(runs[0], runs[index]).map { $1.cpuSeconds / $0.cpuSeconds })
            print(
                "| \(contender.name) | \(format(median(runs[index].map(\.wallSeconds)), digits: 2)) | \(format(cpu, digits: 1)) | \(format(median(runs[index].map(\.peakMiB)))) | \(format(ratio, digits: 2)) |"
            )
        }
        for index in contenders.indices.dropFirst() {
            let ratios = zip(runs[0], runs[index]).map { $0.cpuSeconds / $1.cpuSeconds }
            let memory = zip(runs[0], runs[index]).map { $0.peakMiB / $1.peakMiB }
            print(
                "courier batch / \(contenders[index].name): CPU \(format(median(ratios), digits: 2))× (rounds: \(ratios.map { format($0, digits: 2) }.joined(separator: " "))), peak RSS \(format(median(memory), digits: 2))×"
            )
        }
    }

    /// Child side: the raw contender. Reads the file, sends every GET through AsyncHTTPClient
    /// (`api` "async" or "futures") with `concurrency` at a time, and prints a line per request
    /// in the file's order, as `courier batch` does.
    static func rawBatch(file: String, concurrency: Int, api: String) async throws {
        struct Item: Decodable { var url: String }
        let items = try JSONDecoder().decode([Item].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let lines = ReportLines(count: items.count)
        let next = NIOLockedCounter()
        if api == "futures" {
            let loop = client.eventLoopGroup.any()
            let workers = (0..<concurrency).map { _ in futureWorker(client, urls: items.map(\.url), next: next, lines: lines, loop: loop) }
            try await EventLoopFuture.andAllSucceed(workers, on: loop).get()
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while case let index = next.take(), index < items.count {
                            let response = try await client.execute(HTTPClientRequest(url: items[index].url), timeout: .seconds(30))
                            let body = try await response.body.collect(upTo: 1 << 20)
                            lines.set(index, "\(index) \(response.status.code) \(items[index].url) \(body.readableBytes) bytes")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await client.shutdown()
        FileHandle.standardOutput.write(Data((lines.all.joined(separator: "\n") + "\n").utf8))
    }

    private static func futureWorker(
        _ client: HTTPClient, urls: [String], next: NIOLockedCounter, lines: ReportLines, loop: any EventLoop
    ) -> EventLoopFuture<Void> {
        let index = next.take()
        guard index < urls.count else { return loop.makeSucceededVoidFuture() }
        let request = try! HTTPClient.Request(url: urls[index])
        return client.execute(request: request).flatMap { response in
            lines.set(index, "\(index) \(response.status.code) \(urls[index]) \(response.body?.readableBytes ?? 0) bytes")
            return futureWorker(client, urls: urls, next: next, lines: lines, loop: loop)
        }
    }
}

/// The report's lines, filled in by workers on any thread.
final class ReportLines: Sendable {
    private let lines: NIOLockedValueBox<[String]>

    init(count: Int) { lines = NIOLockedValueBox([String](repeating: "", count: count)) }

    func set(_ index: Int, _ line: String) { lines.withLockedValue { $0[index] = line } }

    var all: [String] { lines.withLockedValue { $0 } }
}

/// Hands out 0, 1, 2… to workers on any thread.
final class NIOLockedCounter: Sendable {
    private let value = NIOLockedValueBox(0)

    func take() -> Int {
        value.withLockedValue { value in
            defer { value += 1 }
            return value
        }
    }
}
