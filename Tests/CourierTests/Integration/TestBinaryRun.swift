import Foundation
import Testing

/// This test binary run again as a child process, with a filter and an environment of its own:
/// for tests that need another transport for the whole suite, or a network namespace.
struct TestBinaryRun {
    /// The child's exit status.
    let status: Int32
    /// What it printed, standard error included.
    let output: String

    /// The `N` of the child's "Test run with N tests" summary; 0 when it printed none.
    var testCount: Int {
        let summary = output.split(separator: "\n").last { $0.contains("Test run with") } ?? ""
        return summary.split(separator: " ").drop { $0 != "with" }.dropFirst().first.flatMap { Int($0) } ?? 0
    }

    /// The first failures the child reported, a line each, then the tests it started and
    /// never finished: where a child that had to be stopped was waiting.
    var failures: String {
        let reported = output.split(separator: "\n").filter { $0.contains("✘") }.prefix(40).joined(separator: "\n")
        let hanging = unfinished
        guard !hanging.isEmpty else { return reported }
        return reported + "\nstarted and never finished:\n" + hanging.prefix(40).joined(separator: "\n")
    }

    /// The tests (not their argument cases) the child started and never reported an end for.
    var unfinished: [String] {
        var started: [String] = []
        var ended: Set<String> = []
        for line in output.split(separator: "\n") {
            if let match = line.firstMatch(of: /^◇ Test (.+) started\.$/), !match.1.hasPrefix("case "), match.1 != "run" {
                started.append(String(match.1))
            } else if let match = line.firstMatch(of: /^[✔✘➜] Test (.+?) (?:with \d+ test cases? )?(?:passed|failed|skipped)/) {
                ended.insert(String(match.1))
            }
        }
        return started.filter { !ended.contains($0) }
    }

    /// Runs the test binary with Swift Testing's `arguments`, under `launcher` (a command and its
    /// arguments, found on the PATH) when one is given, with `environment` added to this
    /// process's; waits for it, and terminates it when the waiting task is cancelled.
    static func run(_ arguments: [String], environment: [String: String], launcher: [String] = []) async throws -> TestBinaryRun {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("courier-test-run-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        if launcher.isEmpty {
            process.executableURL = binary
            process.arguments = ["--testing-library", "swift-testing"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = launcher + [binary.path, "--testing-library", "swift-testing"] + arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        let status = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            process.terminate()
        }
        try output.close()
        return TestBinaryRun(status: status, output: String(decoding: try Data(contentsOf: log), as: UTF8.self))
    }
}

@Suite("A child test run's report")
struct TestBinaryRunReportTests {
    @Test func testsStartedAndNeverEndedAreNamed() {
        let output = """
            ◇ Test run started.
            ◇ Test plain() started.
            ◇ Test "shown name" started.
            ◇ Test cases(value:) started.
            ◇ Test case passing 1 argument value → 1 to cases(value:) started.
            ◇ Test hangs() started.
            ◇ Test skippedOne() started.
            ✔ Test plain() passed after 0.1 seconds.
            ✘ Test "shown name" failed after 0.2 seconds with 1 issue.
            ✔ Test cases(value:) with 3 test cases passed after 0.3 seconds.
            ➜ Test skippedOne() skipped.
            """
        let run = TestBinaryRun(status: 15, output: output)
        #expect(run.unfinished == ["hangs()"])
        #expect(run.failures.hasSuffix("started and never finished:\nhangs()"))
    }
}
