/// Deterministic pseudo-random bytes based on SplitMix64, with random access by offset.
///
/// Byte `i` of the stream is byte `i % 8` (little-endian) of the SplitMix64 output for word `i / 8`,
/// where word `w` is `mix(seed &+ (w + 1) &* 0x9E3779B97F4A7C15)`.
struct ByteGenerator: Sendable {
    let seed: UInt64

    /// The SplitMix64 output for word `index`.
    func word(_ index: Int) -> UInt64 {
        var z = self.seed &+ (UInt64(truncatingIfNeeded: index) &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The bytes at `range` of the stream (offsets must be non-negative).
    func bytes(in range: Range<Int>) -> [UInt8] {
        guard !range.isEmpty, range.lowerBound >= 0 else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var wordIndex = range.lowerBound / 8
        var skip = range.lowerBound % 8
        while out.count < range.count {
            var value = self.word(wordIndex) >> UInt64(skip * 8)
            let available = min(8 - skip, range.count - out.count)
            for _ in 0..<available {
                out.append(UInt8(truncatingIfNeeded: value))
                value >>= 8
            }
            skip = 0
            wordIndex += 1
        }
        return out
    }
}

extension TestServer {
    /// The deterministic pseudo-random bytes that `/bytes/N?seed=K`, `/stream-bytes/N` and `/range/N` serve.
    ///
    /// - Parameters:
    ///   - count: the number of bytes (negative values give an empty array).
    ///   - seed: the generator seed; the same `count` and `seed` always give the same bytes.
    public static func bytes(count: Int, seed: UInt64 = 0) -> [UInt8] {
        ByteGenerator(seed: seed).bytes(in: 0..<max(0, count))
    }
}
