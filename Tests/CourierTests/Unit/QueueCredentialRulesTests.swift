import Foundation
import Testing

@testable import Courier
@testable import CourierQueue

@Suite("Durable queue credential rules")
struct QueueCredentialRulesTests {
    static let url = URL(string: "https://api.example.test/notes")!

    @Test func credentialHeadersAreTakenOutAndOnlyTheirNamesKept() {
        var request = QueuedRequest(
            method: .post, url: Self.url,
            headers: [
                "Authorization": "Bearer a", "Cookie": "s=1", "Proxy-Authorization": "Basic b", "X-Api-Key": "k",
                "Content-Type": "text/plain", "x-api-key": "k2",
            ]
        )
        let removed = request.removeCredentials(sensitive: ["x-api-key"])
        #expect(request.credentialHeaderNames == ["Authorization", "Cookie", "Proxy-Authorization", "X-Api-Key"])
        #expect(request.headers.pairs.map(\.0) == ["Content-Type", QueuedRequest.idempotencyKeyHeader])
        #expect(removed.values(for: "X-Api-Key") == ["k", "k2"])
        #expect(removed["Authorization"] == "Bearer a")
        #expect(request.needsCredentials)
    }

    @Test func theIdempotencyKeyStaysEvenWhenCalledSensitive() {
        var request = QueuedRequest(method: .post, url: Self.url)
        let removed = request.removeCredentials(sensitive: ["idempotency-key"])
        #expect(removed.isEmpty)
        #expect(request.headers[QueuedRequest.idempotencyKeyHeader] == request.idempotencyKey)
        #expect(request.credentialHeaderNames.isEmpty)
        #expect(!request.needsCredentials)
    }

    @Test func namesTheCallerListedAreKeptOnce() {
        var request = QueuedRequest(method: .post, url: Self.url, headers: ["authorization": "Bearer a"])
        request.credentialHeaderNames = ["Authorization", "X-Signature"]
        _ = request.removeCredentials(sensitive: [])
        #expect(request.credentialHeaderNames == ["Authorization", "X-Signature"])
    }

    @Test func aClientCredentialFlagNeedsAnAuthorization() {
        var request = QueuedRequest(method: .post, url: Self.url)
        request.hadClientCredentials = true
        #expect(request.needsCredentials)
        #expect(request.neededCredentialNames == ["Authorization"])
        request.credentialHeaderNames = ["authorization", "Cookie"]
        #expect(request.neededCredentialNames == ["authorization", "Cookie"])
    }

    @Test func heldValuesComeFirstThenDefaultsThenTheClientForAuthorization() {
        let resolution = CredentialResolution(
            needed: ["Authorization", "Cookie", "X-Api-Key"], held: ["Cookie": "held"], defaults: ["X-Api-Key": "default", "Cookie": "other"],
            clientHasCredentials: true
        )
        #expect(resolution.missing.isEmpty)
        #expect(resolution.supplied == ["Cookie": "held", "X-Api-Key": "default"])
        #expect(resolution.usesClientCredentials)
    }

    @Test func whatIsLeftIsAskedOfTheSourceAndOnlyWhatWasAskedIsTaken() {
        var resolution = CredentialResolution(needed: ["Authorization", "X-Api-Key"], held: Headers(), defaults: Headers(), clientHasCredentials: false)
        #expect(resolution.missing == ["Authorization", "X-Api-Key"])
        resolution.take(["authorization": "Bearer s", "X-Other": "no"])
        #expect(resolution.missing == ["X-Api-Key"])
        #expect(resolution.supplied == ["authorization": "Bearer s"])
    }

    @Test func theClientAddsNoCredentialsToARequestEnqueuedWithout() {
        let none = CredentialResolution(needed: [], held: Headers(), defaults: ["Authorization": "Bearer d"], clientHasCredentials: true)
        #expect(!none.usesClientCredentials)
        #expect(none.supplied.isEmpty)
        let cookieOnly = CredentialResolution(needed: ["Cookie"], held: Headers(), defaults: Headers(), clientHasCredentials: true)
        #expect(!cookieOnly.usesClientCredentials)
        #expect(cookieOnly.missing == ["Cookie"])
        let legacy = CredentialResolution(needed: [], held: Headers(), defaults: Headers(), clientHasCredentials: true, isLegacy: true)
        #expect(legacy.usesClientCredentials)
    }

    @Test func theWaitingMessageSaysWhatIsMissingAndWhatToDo() {
        let request = QueuedRequest(method: .post, url: Self.url)
        let message = DurableQueue.missingCredentialsMessage(for: request, missing: ["Authorization"], sourceFailure: "offline")
        #expect(message.contains("https://api.example.test:443 (Authorization)"))
        #expect(message.contains("QueueConfiguration.credentials"))
        #expect(message.contains("ClientConfiguration.authentication"))
        #expect(message.contains("offline"))
        let other = DurableQueue.missingCredentialsMessage(for: request, missing: ["X-Api-Key"], sourceFailure: nil)
        #expect(!other.contains("ClientConfiguration.authentication"))
    }

    /// A record as a queue wrote it before credential names existed.
    @Test func aRecordWrittenBeforeCredentialNamesStillDecodes() throws {
        let old = """
            {"method":"POST","url":"https://api.example.test/notes","headers":[["Idempotency-Key","k-1"],["Content-Type","text/plain"]],
             "body":{"data":{"_0":"aGk="}},"idempotencyKey":"k-1","tag":"t","isOrdered":true}
            """
        let request = try JSONDecoder().decode(QueuedRequest.self, from: Data(old.utf8))
        #expect(request.idempotencyKey == "k-1")
        #expect(request.body == .data(Data("hi".utf8)))
        #expect(request.credentialHeaderNames.isEmpty)
        #expect(!request.hadClientCredentials)
        #expect(request.predatesCredentialNames)
        let written = try JSONDecoder().decode(QueuedRequest.self, from: JSONEncoder().encode(request))
        #expect(!written.predatesCredentialNames)
        var flagged = request
        flagged.credentialHeaderNames = ["Cookie"]
        flagged.hadClientCredentials = true
        let again = try JSONDecoder().decode(QueuedRequest.self, from: JSONEncoder().encode(flagged))
        #expect(again.credentialHeaderNames == ["Cookie"] && again.hadClientCredentials)
    }
}
