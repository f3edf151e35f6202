import Courier
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// A hop is told to whoever asked: the observers, the logger at trace level, either or both.
@Suite("Each hop reaches its observers and its trace lines, whichever are there")
struct HopReportingTests {
    @Test("a trace-level logger with no observer gets a line for each hop sent and received, with its status")
    func traceLinesWithoutObservers() async throws {
        let (logger, handler) = traceLogger()
        try await withServer { server in
            try await withClient(server, configure: { $0.logger = logger }) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect-to?url=/status/204"))
            }
        }
        let lines = handler.entries.map { "\($0.message) \($0.metadata)" }
        #expect(lines.filter { $0.hasPrefix("sending") }.count == 2)
        #expect(lines.contains { $0.hasPrefix("received") && $0.contains("302") })
        #expect(lines.contains { $0.hasPrefix("received") && $0.contains("204") })
    }

    @Test("observers are told of each hop while the logger, above trace level, gets no hop line")
    func observersWithoutTraceLines() async throws {
        var handler = InMemoryLogHandler()
        handler.logLevel = .info
        let logger = Logger(label: "test", factory: { [handler] _ in handler })
        let observed = ObservedExchanges()
        try await withServer { server in
            try await withClient(
                server,
                configure: {
                    $0.logger = logger
                    $0.observers = [observed]
                }
            ) { client in
                _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/redirect-to?url=/status/204"))
            }
        }
        #expect(observed.lines.filter { $0.hasPrefix("will send") }.count == 2)
        #expect(observed.lines.filter { $0.hasPrefix("received") }.map { $0.split(separator: " ")[1] } == ["302", "204"])
        #expect(!handler.entries.contains { $0.message.description == "sending" || $0.message.description == "received" })
    }
}
