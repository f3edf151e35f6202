import Testing

@testable import Courier

@Suite("Connection overrides as a value")
struct ConnectionOverridesValueTests {
    @Test func aFieldSetThenClearedLeavesOverridesEqualToNone() {
        var overrides = ConnectionOverrides()
        #expect(overrides.isEmpty)
        overrides.readTimeout = .unlimited
        overrides.proxy = .direct
        #expect(!overrides.isEmpty)
        #expect(overrides != ConnectionOverrides())
        overrides.readTimeout = nil
        #expect(!overrides.isEmpty)
        overrides.proxy = nil
        #expect(overrides.isEmpty)
        #expect(overrides == ConnectionOverrides())
        #expect(overrides.hashValue == ConnectionOverrides().hashValue)
    }

    @Test func aCopyChangesApartFromItsOriginal() {
        var original = ConnectionOverrides(connectTimeout: .seconds(3), decompression: .disabled)
        var copy = original
        copy.connectTimeout = .seconds(9)
        copy.tls = TLSPolicy()
        #expect(original.connectTimeout == .seconds(3))
        #expect(original.tls == nil)
        #expect(copy.connectTimeout == .seconds(9))
        #expect(copy.decompression == .disabled)
        original.decompression = nil
        #expect(copy.decompression == .disabled)
        #expect(original != copy)
    }

    @Test func equalFieldsAreEqualValuesWithEqualHashes() {
        let made = ConnectionOverrides(readTimeout: .after(.milliseconds(250)), proxy: .through(Proxy(host: "127.0.0.1", port: 3128)))
        var built = ConnectionOverrides()
        built.proxy = .through(Proxy(host: "127.0.0.1", port: 3128))
        built.readTimeout = .after(.milliseconds(250))
        #expect(made == built)
        #expect(Set([made, built]).count == 1)
        built.readTimeout = .after(.milliseconds(251))
        #expect(made != built)
        // An initializer given only nils sets nothing.
        #expect(ConnectionOverrides(connectTimeout: nil, tls: nil).isEmpty)
    }
}
