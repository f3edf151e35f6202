import CourierTesting
import CourierURLSession
import CourierWebSockets
import Foundation
import Testing

@testable import Courier

@Suite("WebSockets")
struct WebSocketTests {
    /// Runs `body` with a WebSocket echo server, shut down after.
    private func withEchoServer<T>(tls: TestServerTLS? = nil, _ body: (WebSocketEchoServer) async throws -> T) async throws -> T {
        let server = try await WebSocketEchoServer.start(tls: tls)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    @Test("text and binary messages go out and come back; closing is a close handshake")
    func echo() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                let received = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { socket in
                    #expect(socket.response.status == 101)
                    try await socket.send("hello")
                    try await socket.send(Data([0, 1, 2, 255]))
                    var received: [CourierWebSocket.Message] = []
                    for try await message in socket.messages {
                        received.append(message)
                        if received.count == 2 { try await socket.close(.normalClosure) }
                    }
                    return received
                }
                #expect(received == [.text("hello"), .binary(Data([0, 1, 2, 255]))])
            }
            let upgrade = try #require(server.upgradeRequests.first)
            #expect(upgrade.method == "GET")
            #expect(upgrade.header("Upgrade") == "websocket")
            #expect(upgrade.header("Sec-WebSocket-Version") == "13")
        }
    }

    @Test("large messages go out cut into frames and come back whole; fragmented messages from the server are put together")
    func largeAndFragmented() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                var configuration = CourierWebSocket.Configuration()
                configuration.maximumFrameSize = 64 * 1024
                let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                let echoed = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString), configuration: configuration) { socket -> CourierWebSocket.Message? in
                    try await socket.send(big)
                    for try await message in socket.messages { return message }
                    return nil
                }
                #expect(echoed == .binary(big))
                let pieces = try await client.webSocket(CourierRequest<Void>(path: server.url("/send?count=3&size=100000&fragments=7").absoluteString)) { socket in
                    var received: [CourierWebSocket.Message] = []
                    for try await message in socket.messages {
                        received.append(message)
                        if received.count == 3 { break }
                    }
                    return received
                }
                let expected = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
                #expect(pieces == Array(repeating: .binary(expected), count: 3))
            }
        }
    }

    @Test("permessage-deflate, offered by default, is used when the server accepts it; large messages stay whole both ways")
    func compression() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                let text = String(repeating: "the same words again and again; ", count: 60_000)
                let random = Data((0..<300_000).map { _ in UInt8.random(in: 0...255) })
                for compression in [true, false] {
                    var configuration = CourierWebSocket.Configuration()
                    configuration.compression = compression
                    let (accepted, echoed) = try await client.webSocket(
                        CourierRequest<Void>(path: server.url("/deflate").absoluteString), configuration: configuration
                    ) { socket -> (String?, [CourierWebSocket.Message]) in
                        try await socket.send(text)
                        try await socket.send(random)
                        var echoed: [CourierWebSocket.Message] = []
                        for try await message in socket.messages {
                            echoed.append(message)
                            if echoed.count == 2 { break }
                        }
                        return (socket.response.headers["Sec-WebSocket-Extensions"], echoed)
                    }
                    #expect(echoed == [.text(text), .binary(random)], "compression \(compression)")
                    #expect((accepted?.hasPrefix("permessage-deflate") ?? false) == compression, "\(String(describing: accepted))")
                }
                let offers = server.upgradeRequests.map { $0.header("Sec-WebSocket-Extensions") }
                #expect(offers.first??.hasPrefix("permessage-deflate") == true)
                #expect(offers.last == .some(nil))
            }
        }
    }

    @Test("a server that closes ends the messages with its code and reason; one that drops the connection is a connectionFailed")
    func serverCloses() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                let closure = try await client.webSocket(CourierRequest<Void>(path: server.url("/close?code=4001&reason=done").absoluteString)) { socket in
                    try await socket.send("one")
                    var received: [CourierWebSocket.Message] = []
                    for try await message in socket.messages { received.append(message) }
                    #expect(received == [.text("one")])
                    return socket.closure
                }
                #expect(closure == CourierWebSocket.Closure(code: CourierWebSocket.CloseCode(4001), reason: "done"))
                let dropped = await courierError {
                    try await client.webSocket(CourierRequest<Void>(path: server.url("/drop").absoluteString)) { socket in
                        try await socket.send("one")
                        for try await _ in socket.messages {}
                    }
                }
                #expect(dropped?.kind == .connectionFailed)
            }
        }
    }

    @Test("a close from the client is answered by the server, and the connection ends")
    func clientCloses() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                let closure = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { socket in
                    try await socket.close(CourierWebSocket.CloseCode(4000), reason: "bye")
                    for try await _ in socket.messages {}
                    return socket.closure
                }
                // The echo server answers a close with the client's code.
                #expect(closure?.code == CourierWebSocket.CloseCode(4000))
                #expect(server.receivedCloseCodes == [4000])
                #expect(await eventually { server.openConnections == 0 })
            }
        }
    }

    @Test("a server that stops answering pings ends the connection with a timeout")
    func unansweredPings() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                var configuration = CourierWebSocket.Configuration()
                configuration.pingInterval = .milliseconds(200)
                configuration.closeTimeout = .milliseconds(200)
                let error = await courierError {
                    try await client.webSocket(CourierRequest<Void>(path: server.url("/silent").absoluteString), configuration: configuration) { socket in
                        for try await _ in socket.messages {}
                    }
                }
                #expect(error?.kind == .timeout, "\(String(describing: error))")
                // A server that answers them keeps the connection, whether or not the messages
                // are being read: two pings go out and come back while nothing is read. They
                // are eight seconds apart, for each answer has until the next ping, and the whole
                // suite running on two cores (its largest transfers and decompressions on the
                // same event loops) has delayed an in-process server's answer past one second,
                // past two, and once past four.
                configuration.pingInterval = .seconds(8)
                let answered = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString), configuration: configuration) { socket -> CourierWebSocket.Message? in
                    try await Task.sleep(for: .milliseconds(17_000))
                    try await socket.send("still here")
                    for try await message in socket.messages { return message }
                    return nil
                }
                #expect(answered == .text("still here"))
            }
        }
    }

    @Test("a message past the size limit is a responseTooLarge, and the server is told 1009")
    func tooLarge() async throws {
        try await withEchoServer { server in
            try await withClient(nil) { client in
                var configuration = CourierWebSocket.Configuration()
                configuration.maximumMessageSize = 1000
                configuration.maximumFrameSize = 600
                for path in ["/send?count=1&size=5000&fragments=10", "/send?count=1&size=5000"] {
                    let error = await courierError {
                        try await client.webSocket(CourierRequest<Void>(path: server.url(path).absoluteString), configuration: configuration) { socket in
                            for try await _ in socket.messages {}
                        }
                    }
                    #expect(error?.kind == .responseTooLarge, "\(path): \(String(describing: error))")
                }
                #expect(await eventually { server.receivedCloseCodes == [1009, 1009] }, "\(server.receivedCloseCodes)")
            }
        }
    }

    @Test("an answer other than 101 is a validationFailed with the response and its body")
    func refusal() async throws {
        try await withEchoServer { server in
            try await withClient(nil, configure: { $0.retryPolicy = .none }) { client in
                let error = await courierError {
                    try await client.webSocket(CourierRequest<Void>(path: server.url("/refuse").absoluteString)) { _ in }
                }
                #expect(error?.kind == .validationFailed)
                #expect(error?.status == 403)
                #expect(error?.response?.body == Data("no".utf8))
            }
        }
    }

    @Test("the upgrade takes the client's path: default headers, credentials, cookies both ways, the chosen subprotocol")
    func onePath() async throws {
        try await withEchoServer { server in
            let jar = CookieJar()
            try await withClient(
                nil,
                configure: {
                    // Credentials go to the base URL's origin: ws://HOST:PORT is http://HOST:PORT.
                    $0.baseURL = URL(string: "http://127.0.0.1:\(server.port)")
                    $0.defaultHeaders = ["X-Team": "blue"]
                    $0.authentication = Authentication(.bearer("token-1"))
                    $0.cookies = jar
                }
            ) { client in
                var configuration = CourierWebSocket.Configuration()
                configuration.subprotocols = ["chat.v2", "chat.v1"]
                let chosen = try await client.webSocket(CourierRequest<Void>(path: server.url("/cookie").absoluteString), configuration: configuration) { socket in
                    socket.subprotocol
                }
                #expect(chosen == "chat.v2")
                _ = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { _ in }
            }
            let requests = server.upgradeRequests
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.header("X-Team") == "blue" && $0.header("Authorization") == "Bearer token-1" })
            #expect(requests.first?.header("Sec-WebSocket-Protocol") == "chat.v2, chat.v1")
            #expect(requests.last?.header("Cookie") == "ws=1")
        }
    }

    @Test("wss: the client's trust roots and pins hold, and a wrong pin refuses the connection")
    func secure() async throws {
        let world = try TLSWorld()
        try await withEchoServer(tls: world.serverTLS) { server in
            var policy = world.trustingAuthority
            policy.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(world.server.publicKeyPin)])]
            try await withClient(nil, configure: { $0.tls = policy }) { client in
                let echoed = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { socket -> CourierWebSocket.Message? in
                    try await socket.send("over tls")
                    for try await message in socket.messages { return message }
                    return nil
                }
                #expect(echoed == .text("over tls"))
            }
            let other = try TLSWorld()
            var wrong = world.trustingAuthority
            wrong.pins = [HostPins(host: "127.0.0.1", pins: [try Pin(other.server.publicKeyPin)])]
            try await withClient(nil, configure: { $0.tls = wrong }) { client in
                let error = await courierError { try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { _ in } }
                #expect(error?.kind == .tls)
            }
        }
    }

    @Test("through an HTTP proxy: a tunnel with the proxy's credentials, none of the origin's")
    func throughAProxy() async throws {
        try await withEchoServer { server in
            try await ForwardProxy.withProxy(credentials: ProxyIntegrationTests.credentials) { proxy in
                try await withClient(
                    nil,
                    configure: {
                        $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: "pr0xy s3cret")
                        $0.baseURL = URL(string: "http://127.0.0.1:\(server.port)")
                        $0.authentication = Authentication(.bearer("origin-token"))
                    }
                ) { client in
                    let echoed = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { socket -> CourierWebSocket.Message? in
                        try await socket.send("tunnelled")
                        for try await message in socket.messages { return message }
                        return nil
                    }
                    #expect(echoed == .text("tunnelled"))
                }
                let connect = try #require(proxy.receivedRequests.first)
                #expect(connect.method == "CONNECT")
                #expect(connect.header("Authorization") == nil)
                #expect(connect.header("Proxy-Authorization") != nil)
                #expect(server.upgradeRequests.first?.header("Proxy-Authorization") == nil)
                #expect(server.upgradeRequests.first?.header("Authorization") == "Bearer origin-token")
            }
        }
    }

    @Test("through a SOCKS5 proxy with credentials")
    func throughSOCKS() async throws {
        try await withEchoServer { server in
            try await SOCKSProxy.withProxy(credentials: ProxyIntegrationTests.credentials) { proxy in
                try await withClient(
                    nil,
                    configure: { $0.proxy = Proxy(host: "127.0.0.1", port: proxy.port, user: "proxy-user", password: "pr0xy s3cret", kind: .socks5h) }
                ) { client in
                    let echoed = try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { socket -> CourierWebSocket.Message? in
                        try await socket.send("via socks")
                        for try await message in socket.messages { return message }
                        return nil
                    }
                    #expect(echoed == .text("via socks"))
                }
                #expect(proxy.tunnels.map(\.port) == [server.port])
                #expect(proxy.tunnels.first?.user == "proxy-user")
            }
        }
    }

    @Test("a client on a transport of its own (URLSession) is told it cannot open WebSockets")
    func anotherTransport() async throws {
        try await withEchoServer { server in
            let configuration = ClientConfiguration()
            try await CourierClient.withClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration)) { client in
                let error = await courierError { try await client.webSocket(CourierRequest<Void>(path: server.url("/echo").absoluteString)) { _ in } }
                #expect(error?.kind == .invalidConfiguration)
                #expect(error?.message.contains("own transport") == true)
            }
        }
    }

    @Test("a request that is not a GET, or an absurd configuration, is refused before anything is sent")
    func refusedBeforeSending() async throws {
        try await withClient(nil) { client in
            var request = CourierRequest<Void>(path: "ws://127.0.0.1:9/")
            request.method = .post
            let error = await courierError { try await client.webSocket(request) { _ in } }
            #expect(error?.kind == .invalidMethod)
            var absurd: [CourierWebSocket.Configuration] = []
            for change in [{ (c: inout CourierWebSocket.Configuration) in c.maximumFrameSize = 0 }, { $0.maximumMessageSize = -1 }, { $0.pingInterval = .zero }, { $0.closeTimeout = .seconds(-1) }] {
                var configuration = CourierWebSocket.Configuration()
                change(&configuration)
                absurd.append(configuration)
            }
            for configuration in absurd {
                let refused = await courierError { try await client.webSocket(CourierRequest<Void>(path: "ws://127.0.0.1:9/"), configuration: configuration) { _ in } }
                #expect(refused?.kind == .invalidConfiguration, "\(String(describing: refused))")
            }
        }
    }
}
