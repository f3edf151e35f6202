import Foundation
import Testing

@testable import Courier

/// Pin parsing, host patterns and the choice of a host's TLS settings.
@Suite("Pins, host patterns and per-host TLS settings")
struct PinningRulesTests {
    @Test(arguments: [
        ("api.example.com", "api.example.com", true),
        ("API.Example.COM.", "api.example.com", true),
        ("api.example.com", "api.example.com.", true),
        ("api.example.com", "www.example.com", false),
        ("*.example.com", "api.example.com", true),
        ("*.example.com", "API.EXAMPLE.COM.", true),
        ("*.example.com", "example.com", false),
        ("*.example.com", "a.b.example.com", false),
        ("*.example.com", "badexample.com", false),
        ("*.example.com", "api.example.com.evil.test", false),
        ("*", "anything.test", true),
        ("127.0.0.1", "127.0.0.1", true),
        ("[::1]", "::1", true),
    ])
    func hostPatterns(pattern: String, host: String, matches: Bool) {
        #expect(HostPattern(pattern).matches(host) == matches)
    }

    @Test func pinsParseFromSHA256Base64() throws {
        let digest = Data((0..<32).map { UInt8($0) })
        let pin = try Pin("sha256/" + digest.base64EncodedString())
        #expect(pin == (try Pin.publicKeySHA256(digest)))
        #expect(pin.description == "sha256/" + digest.base64EncodedString())
    }

    @Test(arguments: ["sha1/AAAA", "sha256/not base64!", "sha256/" + Data(count: 20).base64EncodedString(), ""])
    func malformedPinsAreRefused(text: String) {
        #expect(throws: CourierError.self) { try Pin(text) }
    }

    @Test func expiredPinsNoLongerApply() throws {
        let now = Date()
        let pins = HostPins(host: "api.example.com", pins: [], expires: now)
        #expect(pins.applies(to: "api.example.com", at: now - 1))
        #expect(!pins.applies(to: "api.example.com", at: now))
    }

    @Test func theDefaultPolicyLeavesEveryHostToTheDefaults() {
        #expect(TLSPolicy().settings(for: "example.com", at: Date(), standardMinimum: .tls12) == nil)
        #expect(TLSPolicy().isDefault)
    }

    @Test func aFloorOtherThanTheTransportsIsASettingOfItsOwn() {
        var policy = TLSPolicy()
        policy.minimumVersion = .tls13
        #expect(policy.settings(for: "example.com", at: Date(), standardMinimum: .tls13) == nil)
        #expect(policy.settings(for: "example.com", at: Date(), standardMinimum: .tls12)?.minimumVersion == .tls13)
    }

    @Test func hostSettingsCombineRootsPinsAndIdentity() throws {
        let pin = try Pin.publicKeySHA256(Data(count: 32))
        let shared = ClientIdentity.pkcs12(.bytes(Data([1])), password: "a")
        let own = ClientIdentity.pkcs12(.bytes(Data([2])), password: "b")
        var policy = TLSPolicy(pins: [HostPins(host: "*.example.com", pins: [pin])], clientIdentity: shared)
        policy.hostIdentities = ["api.example.com": own]
        let api = try #require(policy.settings(for: "api.example.com", at: Date(), standardMinimum: .tls12))
        #expect(api.pins?.pins == [pin])
        #expect(api.identity == own)
        let other = try #require(policy.settings(for: "other.test", at: Date(), standardMinimum: .tls12))
        #expect(other.pins == nil)
        #expect(other.identity == shared)
        #expect(api != other)
    }

    @Test func theMostSpecificHostIdentityWins() throws {
        let exact = ClientIdentity.pkcs12(.bytes(Data([1])), password: "")
        let wildcard = ClientIdentity.pkcs12(.bytes(Data([2])), password: "")
        let every = ClientIdentity.pkcs12(.bytes(Data([3])), password: "")
        let policy = TLSPolicy(hostIdentities: ["*": every, "*.example.com": wildcard, "api.example.com": exact])
        #expect(policy.settings(for: "api.example.com", at: Date(), standardMinimum: .tls12)?.identity == exact)
        #expect(policy.settings(for: "www.example.com", at: Date(), standardMinimum: .tls12)?.identity == wildcard)
        #expect(policy.settings(for: "example.org", at: Date(), standardMinimum: .tls12)?.identity == every)
    }

    @Test func anIdentityNeverShowsItsPassword() {
        let identity = ClientIdentity.pkcs12(.file("/tmp/client.p12"), password: "hunter2")
        #expect(!identity.description.contains("hunter2"))
        #expect(!String(describing: TLSPolicy(clientIdentity: identity)).contains("hunter2"))
    }
}
