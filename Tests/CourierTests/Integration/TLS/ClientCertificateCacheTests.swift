import Courier
import CourierTesting
import Foundation
import Testing

/// Two client certificates on one host keep their cache entries apart.
@Suite("Cache partitions by client certificate")
struct ClientCertificateCacheTests {
    /// A PEM identity from `certificate`.
    private func identity(_ certificate: TestCertificate) -> ClientIdentity {
        .pem(certificate: .bytes(Data(certificate.certificatePEM.utf8)), privateKey: .bytes(Data(certificate.privateKeyPEM.utf8)))
    }

    /// A `/cacheable` GET through `client`: its body and source.
    private func fetch(_ client: CourierClient, _ path: String) async throws -> (body: String, source: CourierResponse.Source) {
        let response = try await client.response(for: CourierRequest<CourierResponse>(path: path))
        return (String(decoding: response.body, as: UTF8.self), response.source)
    }

    @Test func twoCertificatesOnOneHostNeverSeeEachOthersEntries() async throws {
        let setup = try ClientCertificateTests.Setup()
        let bob = try TestCertificates.leaf("bob", hosts: ["bob.test"], issuer: setup.clientAuthority, client: true)
        let storage = MemoryCacheStorage()
        let path = "/cacheable?cc=max-age=600"
        try await withTLSServer(setup.serverTLS) { server in
            var adaPolicy = setup.policy(nil)
            adaPolicy.clientIdentity = identity(setup.client)
            var bobPolicy = setup.policy(nil)
            bobPolicy.hostIdentities = [try #require(server.baseURL.host): identity(bob)]
            func cached(_ configuration: inout ClientConfiguration, _ policy: TLSPolicy) {
                configuration.tls = policy
                configuration.cache = CacheConfiguration(storage: storage)
            }
            try await withClient(server, configure: { cached(&$0, adaPolicy) }) { ada in
                try await withClient(server, configure: { cached(&$0, bobPolicy) }) { bob in
                    var seen: [String] = []
                    for client in [ada, bob, ada, bob] {
                        let (body, source) = try await fetch(client, path)
                        seen.append("\(body) \(source)")
                    }
                    #expect(seen == ["hit 1 network", "hit 2 network", "hit 1 cache", "hit 2 cache"])
                }
            }
            #expect(server.receivedRequests.count == 2)
        }
        #expect(try await storage.statistics().entryCount == 2)
    }

    @Test func theSameCertificateInTwoClientsSharesItsEntries() async throws {
        let setup = try ClientCertificateTests.Setup()
        let storage = MemoryCacheStorage()
        let policy = setup.policy(identity(setup.client))
        try await withTLSServer(setup.serverTLS) { server in
            for expected in [("hit 1", CourierResponse.Source.network), ("hit 1", .cache)] {
                let (body, source) = try await withClient(
                    server,
                    configure: {
                        $0.tls = policy; $0.cache = CacheConfiguration(storage: storage)
                    }
                ) { client in
                    try await fetch(client, "/cacheable?cc=max-age=600")
                }
                #expect(body == expected.0 && source == expected.1)
            }
        }
    }
}
