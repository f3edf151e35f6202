import Foundation

/// The built `courier` executable, run as a child process (for tests that kill it).
struct ChildProcess {
    let process: Process
    let output: Pipe

    /// The `courier` executable the package built.
    static func courierExecutable() throws -> URL {
        try builtExecutable(named: "courier")
    }

    /// Starts `courier ARGUMENTS…`.
    static func launch(_ arguments: [String]) throws -> ChildProcess {
        let process = Process()
        process.executableURL = try courierExecutable()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try start(process)
        return ChildProcess(process: process, output: output)
    }

    /// Held while a child process is started: the tests start many at once, and Foundation's
    /// `Process.run()` on Linux is not known to be safe to call from several threads together.
    private static let launches = NSLock()

    /// Starts `process`, one start at a time in this test process.
    static func start(_ process: Process) throws {
        try launches.withLock { try process.run() }
    }

    /// Kills the child with SIGKILL, by its PID.
    func kill() {
        if process.isRunning { killByPID(process.processIdentifier) }
    }

    /// Stops the child with SIGSTOP, by its PID: it holds what it held, and does nothing more.
    func pause() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGSTOP) }
    }

    /// Waits for the child to end (at most `seconds`, then kills it); returns its status and
    /// what it printed.
    func finish(within seconds: Int = 120) async throws -> (status: Int32, stdout: String) {
        for _ in 0..<(seconds * 100) where process.isRunning {
            try await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning { kill() }
        process.waitUntilExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// Sends SIGKILL to the process `pid`.
private func killByPID(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}

struct ChildProcessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The executable `name` the package built, found beside the test bundle (at most four folders
/// up from it, for bundles nested in `.xctest` folders).
func builtExecutable(named name: String) throws -> URL {
    let starts = [URL(fileURLWithPath: CommandLine.arguments[0])] + Bundle.allBundles.map(\.bundleURL)
    for start in starts {
        var folder = start.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), !isFolder.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
    }
    throw ExecutableNotFound(name: name, searched: starts.map(\.path))
}

/// A built executable is not where the package puts it.
struct ExecutableNotFound: Error, CustomStringConvertible {
    var name: String
    var searched: [String]
    var description: String { "the built \(name) executable was not found beside \(searched); run swift build first" }
}

/// Runs `courier ARGUMENTS…` to its end (at most two minutes); returns its status, stdout
/// and stderr.
func runCourier(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = try ChildProcess.courierExecutable()
    process.arguments = arguments
    let files = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let out = files.appendingPathComponent("out")
    let err = files.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    try ChildProcess.start(process)
    for _ in 0..<12_000 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
}
