import NIOCore
import NIOHTTP1

extension TestServerRoutes {
    /// `/events?count=N&retry=MS&drop-after=K&interval=S&type=T&line-end=lf|cr|crlf&bom=1&chunk=C`:
    /// a `text/event-stream` of events `1...N` (at most 10 000), each with its id and the data
    /// `{"n":ID}`, carrying on after the request's `Last-Event-ID`; `204` once every event was
    /// sent.
    ///
    /// The stream opens with a comment and, with `retry`, a `retry` field. With `drop-after`,
    /// each connection sends K events, then half of the next one (its `id` and `data` lines,
    /// not the empty line that would end it), and then drops; without it the response ends
    /// after event N. `interval` pauses between events; `line-end` chooses the line ends;
    /// `bom` starts the stream with a byte-order mark; `chunk` cuts the stream into pieces of
    /// C bytes.
    static func events(_ request: TestRequest) -> TestResponse {
        guard let count = self.count(request.queryValue("count"), default: 5, maximum: 10_000),
            let dropAfter = self.count(request.queryValue("drop-after"), default: Int.max, maximum: Int.max),
            let interval = self.seconds(request.queryValue("interval"), default: 0, maximum: 10),
            let chunk = self.count(request.queryValue("chunk"), default: Int.max, maximum: Int.max), chunk > 0
        else {
            return .error(.badRequest, "invalid count, drop-after, interval or chunk")
        }
        let end: String
        switch request.queryValue("line-end") ?? "lf" {
        case "lf": end = "\n"
        case "cr": end = "\r"
        case "crlf": end = "\r\n"
        default: return .error(.badRequest, "line-end must be lf, cr or crlf")
        }
        let last = request.header("Last-Event-ID").flatMap { Int($0) } ?? 0
        guard last < count else { return TestResponse(status: .noContent, headers: [:], body: .empty) }
        let type = request.queryValue("type").map { "event: \($0)\(end)" } ?? ""
        var opening = (request.queryValue("bom") == "1" ? "\u{FEFF}" : "") + ": events \(last + 1) to \(count)\(end)"
        if let retry = request.queryValue("retry") { opening += "retry: \(retry)\(end)" }
        var steps: [BodyStep] = [.bytes(Array((opening + end).utf8))]
        for id in (last + 1)...count {
            let lines = "\(type)id: \(id)\(end)data: {\"n\":\(id)}\(end)"
            if id - last > dropAfter {
                steps.append(.bytes(Array(lines.utf8)))
                steps.append(.abort)
                break
            }
            if id > last + 1, interval > .zero { steps.append(.pause(interval)) }
            steps.append(.bytes(Array((lines + end).utf8)))
        }
        return TestResponse(
            status: .ok,
            headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store"],
            body: .stream(length: nil, source: StepListSource(steps, chunkSize: chunk))
        )
    }
}

/// A body made of a fixed list of steps, each run of bytes cut into pieces of at most
/// `chunkSize` bytes.
final class StepListSource: ResponseBodySource {
    private var steps: [BodyStep]
    private let chunkSize: Int

    init(_ steps: [BodyStep], chunkSize: Int) {
        self.steps = steps.reversed()
        self.chunkSize = chunkSize
    }

    func next() -> BodyStep {
        guard let step = steps.popLast() else { return .end }
        guard case .bytes(let bytes) = step, bytes.count > chunkSize else { return step }
        steps.append(.bytes(Array(bytes[chunkSize...])))
        return .bytes(Array(bytes[..<chunkSize]))
    }
}
