import NIOSSL

extension MinimumTLSVersion {
    /// The same floor in NIOSSL's terms.
    var nioVersion: TLSVersion {
        switch rank {
        case 10: return .tlsv1
        case 11: return .tlsv11
        case 13: return .tlsv13
        default: return .tlsv12
        }
    }

    /// NIOSSL's client configuration with this floor.
    func clientConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = nioVersion
        return configuration
    }
}
