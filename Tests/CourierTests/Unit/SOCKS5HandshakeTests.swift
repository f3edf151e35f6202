import Foundation
import Testing

@testable import Courier

@Suite("SOCKS5: the client's handshake, byte by byte")
struct SOCKS5HandshakeTests {
    typealias Handshake = SOCKS5Handshake

    /// Feeds `answer` to `handshake` one byte at a time; returns the steps that were not reads.
    static func feed(_ handshake: inout Handshake, _ answer: [UInt8]) throws(Handshake.Refusal) -> [Handshake.Step] {
        var received: [UInt8] = []
        var steps: [Handshake.Step] = []
        for byte in answer {
            received.append(byte)
            while true {
                let step = try handshake.advance(&received)
                if step == .read { break }
                steps.append(step)
                if step == .established { return steps }
            }
        }
        return steps
    }

    @Test("without credentials: no authentication offered, then CONNECT by name")
    func byName() throws {
        var handshake = try Handshake(target: .name("example.com"), port: 443, credentials: nil)
        #expect(handshake.opening == [5, 1, 0])
        let connect: [UInt8] = [5, 1, 0, 3, 11] + Array("example.com".utf8) + [1, 187]
        let steps = try Self.feed(&handshake, [5, 0] + [5, 0, 0, 1, 10, 0, 0, 1, 0x1F, 0x90])
        #expect(steps == [.send(connect), .established])
    }

    @Test("with credentials: both methods offered, the sign-in of RFC 1929, then CONNECT by address")
    func withCredentials() throws {
        let credentials = Proxy.Credentials(user: "ada", password: "pw")
        var handshake = try Handshake(target: .address([127, 0, 0, 1]), port: 8080, credentials: credentials)
        #expect(handshake.opening == [5, 2, 0, 2])
        let signIn: [UInt8] = [1, 3] + Array("ada".utf8) + [2] + Array("pw".utf8)
        // The reply names a domain: its length decides where it ends.
        let reply: [UInt8] = [5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80]
        let steps = try Self.feed(&handshake, [5, 2] + [1, 0] + reply)
        #expect(steps == [.send(signIn), .send([5, 1, 0, 1, 127, 0, 0, 1, 0x1F, 0x90]), .established])
        // A proxy that accepts "no authentication" needs no sign-in, credentials or not.
        var open = try Handshake(target: .address(Array(repeating: 0, count: 15) + [1]), port: 80, credentials: credentials)
        let v6 = try Self.feed(&open, [5, 0, 5, 0, 0, 4] + Array(repeating: 0, count: 16) + [0, 80])
        #expect(v6 == [.send([5, 1, 0, 4] + Array(repeating: 0, count: 15) + [1, 0, 80]), .established])
    }

    @Test("refusals: no acceptable method, a method not offered, a failed sign-in, each reply code, another protocol")
    func refusals() throws {
        func refusal(_ answer: [UInt8], credentials: Proxy.Credentials? = nil) -> Handshake.Refusal? {
            do {
                var handshake = try Handshake(target: .name("example.com"), port: 443, credentials: credentials)
                _ = try Self.feed(&handshake, answer)
                return nil
            } catch {
                return error
            }
        }
        let credentials = Proxy.Credentials(user: "ada", password: "pw")
        #expect(refusal([5, 0xFF]) == .noAcceptableMethod)
        #expect(refusal([5, 2]) == .unreadable)
        #expect(refusal([5, 2, 1, 1], credentials: credentials) == .credentials)
        for code: UInt8 in 1...8 {
            #expect(refusal([5, 0, 5, code, 0, 1, 0, 0, 0, 0, 0, 0]) == .reply(code))
        }
        #expect(refusal(Array("HTTP/1.1 400 Bad Request\r\n".utf8)) == .unreadable)
        #expect(refusal([5, 0, 5, 0, 0, 9, 0, 0]) == .unreadable)
    }

    @Test("a name or credential longer than 255 bytes is refused before anything is sent")
    func tooLong() {
        let long = String(repeating: "a", count: 256)
        #expect(throws: Handshake.Refusal.tooLong("the host name")) { try Handshake(target: .name(long), port: 80, credentials: nil) }
        #expect(throws: Handshake.Refusal.tooLong("the proxy's password")) {
            try Handshake(target: .name("a"), port: 80, credentials: .init(user: "u", password: long))
        }
        #expect(Handshake.Refusal.tooLong("the host name").error(host: long, port: 80, proxy: nil).kind == .proxy)
    }
}
