import Foundation

/// A reader of binary property lists (`bplist00`) that returns keyed-archive references (UIDs)
/// as numbers, the same on every platform, and answers any malformed input with `nil`.
///
/// Foundation decodes a UID into a private type whose value cannot be read portably, and its
/// keyed unarchiver on Linux traps on a class it does not expect; resume data is read here
/// instead, with every offset, count and reference checked against the bytes there are.
struct BinaryPropertyList {
    /// A value of the list.
    indirect enum Value: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Double)
        case data(Data)
        case string(String)
        /// A keyed archive's reference to the object at this index of `$objects`.
        case uid(Int)
        case array([Value])
        case dictionary([String: Value])
    }

    /// The most objects one list may hold.
    static let maximumObjects = 100_000
    /// The deepest nesting read.
    static let maximumDepth = 32
    /// The most references followed for one list, counting shared objects each time they are
    /// reached: a list whose objects refer to each other many times over cannot make the reader
    /// work without end.
    static let maximumReferences = 200_000

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    private var followed = 0
    /// Each object read once: an object referred to many times is shared, not built again, so
    /// a small list cannot unfold into a large value.
    private var finished: [Int: Value] = [:]
    /// The containers being read, whose reference to themselves is a cycle.
    private var reading: Set<Int> = []

    /// Reads `data`; `nil` when it is not a well-formed binary property list.
    static func read(_ data: Data) -> Value? {
        guard var list = BinaryPropertyList(data) else { return nil }
        return list.value(at: list.top, depth: 0)
    }

    private let top: Int

    private init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let count = Self.unsigned(bytes, at: trailer + 8, size: 8), let top = Self.unsigned(bytes, at: trailer + 16, size: 8),
            let table = Self.unsigned(bytes, at: trailer + 24, size: 8),
            count > 0, count <= Self.maximumObjects, top < count, table >= 8, table <= trailer, count <= (trailer - table) / offsetSize
        else { return nil }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            guard let offset = Self.unsigned(bytes, at: table + index * offsetSize, size: offsetSize), offset >= 8, offset < table else { return nil }
            offsets.append(offset)
        }
        self.bytes = bytes
        self.offsets = offsets
        self.referenceSize = referenceSize
        self.top = top
    }

    /// The big-endian unsigned number of `size` bytes at `offset`, when it is there and fits an `Int`.
    private static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard let value = bigEndian(bytes, at: offset, size: size) else { return nil }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// The `size` bytes (at most 8) at `offset` as one big-endian number; `nil` past the end.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value
    }

    private mutating func value(at index: Int, depth: Int) -> Value? {
        followed += 1
        guard index >= 0, index < offsets.count, depth <= Self.maximumDepth, followed <= Self.maximumReferences, !reading.contains(index) else {
            return nil
        }
        if let known = finished[index] { return known }
        reading.insert(index)
        let value = object(at: index, depth: depth)
        reading.remove(index)
        finished[index] = value
        return value
    }

    /// Reads the object at `index`, whose references have not been followed before.
    private mutating func object(at index: Int, depth: Int) -> Value? {
        let start = offsets[index]
        let marker = bytes[start]
        let info = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: return nil
            }
        case 0x1:
            return integer(at: start + 1, sizeExponent: info).map(Value.integer)
        case 0x2:
            guard info == 2 || info == 3 else { return nil }
            return real(at: start + 1, size: 1 << info).map(Value.real)
        case 0x3:
            guard marker == 0x33 else { return nil }
            return real(at: start + 1, size: 8).map(Value.date)
        case 0x4:
            guard let (count, body) = length(start, info), let end = end(body, count) else { return nil }
            return .data(Data(bytes[body..<end]))
        case 0x5:
            guard let (count, body) = length(start, info), let end = end(body, count) else { return nil }
            return String(bytes: bytes[body..<end], encoding: .ascii).map(Value.string)
        case 0x6:
            guard let (count, body) = length(start, info), count <= Int.max / 2, let end = end(body, count * 2) else { return nil }
            let units = stride(from: body, to: end, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return String(validating: units, as: UTF16.self).map(Value.string)
        case 0x7:
            guard let (count, body) = length(start, info), let end = end(body, count) else { return nil }
            return String(validating: bytes[body..<end], as: UTF8.self).map(Value.string)
        case 0x8:
            return Self.unsigned(bytes, at: start + 1, size: info + 1).map(Value.uid)
        case 0xA:
            guard let references = references(start, info, groups: 1) else { return nil }
            var values: [Value] = []
            for reference in references {
                guard let value = value(at: reference, depth: depth + 1) else { return nil }
                values.append(value)
            }
            return .array(values)
        case 0xD:
            guard let references = references(start, info, groups: 2) else { return nil }
            let half = references.count / 2
            var values: [String: Value] = [:]
            for position in 0..<half {
                guard case .string(let key)? = value(at: references[position], depth: depth + 1),
                    let value = value(at: references[half + position], depth: depth + 1)
                else { return nil }
                values[key] = value
            }
            return .dictionary(values)
        default:
            return nil
        }
    }

    /// The element count of the object at `start` and where its contents begin: the marker's
    /// low bits, or, when they are all set, the integer object that follows.
    private func length(_ start: Int, _ info: Int) -> (count: Int, body: Int)? {
        guard info == 0x0F else { return (info, start + 1) }
        let next = start + 1
        guard next < bytes.count, bytes[next] >> 4 == 0x1 else { return nil }
        let exponent = Int(bytes[next] & 0x0F)
        guard exponent <= 3, let count = integer(at: next + 1, sizeExponent: exponent), count >= 0, count <= Int64(bytes.count) else { return nil }
        return (Int(count), next + 1 + (1 << exponent))
    }

    /// Where `count` bytes from `body` end, when they are all there.
    private func end(_ body: Int, _ count: Int) -> Int? {
        body <= bytes.count && count <= bytes.count - body ? body + count : nil
    }

    /// The object references of an array (one group) or a dictionary (keys, then values).
    private func references(_ start: Int, _ info: Int, groups: Int) -> [Int]? {
        guard let (count, body) = length(start, info), count <= Self.maximumObjects else { return nil }
        let total = count * groups
        guard let end = end(body, total * referenceSize) else { return nil }
        let found = stride(from: body, to: end, by: referenceSize).compactMap { Self.unsigned(bytes, at: $0, size: referenceSize) }
        return found.count == total ? found : nil
    }

    /// A signed integer of 1, 2, 4 or 8 bytes (a 16-byte one only when it fits 64 bits).
    private func integer(at offset: Int, sizeExponent: Int) -> Int64? {
        switch sizeExponent {
        case 0...3:
            let size = 1 << sizeExponent
            guard let value = Self.bigEndian(bytes, at: offset, size: size) else { return nil }
            // 1, 2 and 4 bytes are unsigned; 8 bytes are two's complement.
            return size == 8 ? Int64(bitPattern: value) : Int64(value)
        case 4:
            guard offset >= 0, offset <= bytes.count - 16, bytes[offset..<offset + 8].allSatisfy({ $0 == 0 }) else { return nil }
            return integer(at: offset + 8, sizeExponent: 3).flatMap { $0 >= 0 ? $0 : nil }
        default:
            return nil
        }
    }

    /// A 4- or 8-byte IEEE 754 number; any other size is not a real of the format.
    private func real(at offset: Int, size: Int) -> Double? {
        guard size == 4 || size == 8, let value = Self.bigEndian(bytes, at: offset, size: size) else { return nil }
        return size == 4 ? Double(Float(bitPattern: UInt32(value))) : Double(bitPattern: value)
    }
}
