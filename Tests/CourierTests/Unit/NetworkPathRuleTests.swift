import Testing

@testable import CourierQueue

/// When the queue counts the network as usable, and when it says it is back.
@Suite struct NetworkPathRuleTests {
    private func interface(
        _ address: NetworkInterface.Address = .routable, name: String = "eth0", up: Bool = true, running: Bool = true, loopback: Bool = false
    ) -> NetworkInterface {
        NetworkInterface(name: name, isUp: up, isRunning: running, isLoopback: loopback, address: address)
    }

    @Test func aPathNeedsARunningInterfaceOtherThanTheLoopbackWithARoutableAddress() {
        #expect(NetworkInterface.offerPath([interface()]))
        #expect(!NetworkInterface.offerPath([]))
        #expect(!NetworkInterface.offerPath([interface(name: "lo", loopback: true)]))
        #expect(!NetworkInterface.offerPath([interface(up: false)]))
        #expect(!NetworkInterface.offerPath([interface(running: false)]))
        #expect(!NetworkInterface.offerPath([interface(.linkLocal)]))
        #expect(!NetworkInterface.offerPath([interface(.none)]))
        #expect(NetworkInterface.offerPath([interface(name: "lo", loopback: true), interface(.none), interface()]))
    }

    @Test func linkLocalRangesAreTold() {
        #expect(NetworkInterface.kind(ipv4: (169, 254)) == .linkLocal)
        #expect(NetworkInterface.kind(ipv4: (169, 253)) == .routable)
        #expect(NetworkInterface.kind(ipv4: (10, 0)) == .routable)
        #expect(NetworkInterface.kind(ipv6: (0xFE, 0x80)) == .linkLocal)
        #expect(NetworkInterface.kind(ipv6: (0xFE, 0xBF)) == .linkLocal)
        #expect(NetworkInterface.kind(ipv6: (0xFE, 0xC0)) == .routable)
        #expect(NetworkInterface.kind(ipv6: (0x20, 0x01)) == .routable)
    }

    @Test func thisHostsLoopbackIsReadAsOne() {
        let loopback = NetworkInterface.current().filter { $0.name == "lo" }
        #expect(!loopback.isEmpty)
        #expect(loopback.allSatisfy { $0.isLoopback })
        #expect(loopback.contains { $0.address == .routable })
    }

    @Test func onlyAReturnIsSignalled() {
        let edge = PathEdge(usable: false)
        #expect(!edge.update(usable: false))
        #expect(edge.update(usable: true))
        #expect(!edge.update(usable: true))
        #expect(!edge.update(usable: false))
        #expect(!edge.isUsable)
        #expect(edge.update(usable: true))
        #expect(edge.isUsable)
        #expect(!PathEdge(usable: true).update(usable: true))
    }
}
