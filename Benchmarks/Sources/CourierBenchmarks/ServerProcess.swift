import CourierTesting
import Foundation

/// The in-process test server, run in a child process of this executable, or one started
/// apart (`--server-port`).
struct ServerProcess {
    /// The child, or `nil` for a server this run did not start (and so does not stop).
    let process: Process?
    let port: Int
    /// The first line the child printed (its port, and whatever else a server child reports).
    let line: String

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Starts `courier-bench` with `arguments` (`--serve` by default) and reads the port it prints.
    static func launch(arguments: [String] = ["--serve"]) throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.environment = Allocations.environmentWithoutCounter
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = Pipe()
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { throw HarnessError("the server process exited before printing its port") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text.prefix { $0 != " " }) else {
            throw HarnessError("the server process printed no port")
        }
        return ServerProcess(process: process, port: port, line: text)
    }

    /// The test server started apart with `courier-bench --serve`, listening on `port` of
    /// 127.0.0.1: for profilers that follow no child process (valgrind, heaptrack), which then
    /// see the client alone.
    static func running(on port: Int) -> ServerProcess {
        ServerProcess(process: nil, port: port, line: "\(port)")
    }

    /// Stops the child by its PID and waits for it; a server started apart is left running.
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// Child side: serve until stdin closes (the parent died or stopped us).
    static func serve() async throws {
        let server = try await TestServer.start()
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        while true {
            let chunk = FileHandle.standardInput.availableData
            if chunk.isEmpty { break }
        }
        try await server.shutdown()
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
