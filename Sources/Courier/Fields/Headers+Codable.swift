extension Headers: Codable {
    /// Decodes a list written by ``encode(to:)``: an array of `[name, value]` pairs, in order.
    public init(from decoder: any Decoder) throws {
        let pairs = try [[String]](from: decoder)
        guard pairs.allSatisfy({ $0.count == 2 }) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "Each header field must be a [name, value] pair.")
            )
        }
        self.init(pairs.map { ($0[0], $0[1]) })
    }

    /// Encodes the fields in order, as an array of `[name, value]` pairs.
    public func encode(to encoder: any Encoder) throws {
        try map { [$0.name, $0.value] }.encode(to: encoder)
    }
}
