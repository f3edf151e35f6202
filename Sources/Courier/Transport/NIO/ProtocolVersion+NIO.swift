import NIOHTTP1

extension CourierResponse.ProtocolVersion {
    /// The version of a response head decoded by NIO (AsyncHTTPClient reports HTTP/2 heads as
    /// version 2.0).
    init(_ version: NIOHTTP1.HTTPVersion) {
        self.init(major: Int(version.major), minor: Int(version.minor))
    }
}
