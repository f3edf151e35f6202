/// An ordered, multi-valued list of HTTP header fields with case-insensitive names.
///
/// Fields keep the order they were added or received in; a name may appear more than once.
/// Lookups ignore ASCII case (`content-type` finds `Content-Type`).
public struct Headers: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name, as written.
        public var name: String
        /// The field value.
        public var value: String
        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// An empty list.
    public init() { fields = [] }

    /// A list of `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// A list of `fields`, in order.
    init(fields: [Field]) {
        self.fields = fields
    }

    /// A list from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields.
    public var count: Int { fields.count }
    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, or `nil`.
    public subscript(name: String) -> String? {
        fields.first { Headers.same($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Headers.same($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Headers.same($0.name, name) }
    }

    /// Makes room for `count` fields in all, so that adding up to that many grows the storage
    /// at most once.
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field; the new field takes the place of the first.
    public mutating func set(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Headers.same($0.name, name) }) else {
            fields.append(Field(name: name, value: value))
            return
        }
        fields[first] = Field(name: name, value: value)
        var index = fields.count - 1
        while index > first {
            if Headers.same(fields[index].name, name) { fields.remove(at: index) }
            index -= 1
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Headers.same($0.name, name) }
    }

    /// Adds every field of `other` whose name is not present yet.
    public mutating func addMissing(from other: Headers) {
        // Names are looked up among the fields there were before, without a copy of them
        // (which would make the storage shared, and the first append copy it).
        let present = fields.count
        for field in other where !fields[..<present].contains(where: { Headers.same($0.name, field.name) }) {
            fields.append(field)
        }
    }

    /// The fields as `(name, value)` pairs.
    public var pairs: [(String, String)] { fields.map { ($0.name, $0.value) } }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    public static func == (lhs: Headers, rhs: Headers) -> Bool { lhs.fields == rhs.fields }
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

    /// Compares two header names, ignoring ASCII case, without allocating: from their contiguous
    /// bytes when both have them (a native string, or a short one), byte by byte otherwise.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let compared = x.withContiguousStorageIfAvailable { x in
            y.withContiguousStorageIfAvailable { y in
                for index in 0..<x.count where !sameIgnoringCase(x[index], y[index]) { return false }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        for (p, q) in zip(x, y) where !sameIgnoringCase(p, q) { return false }
        return true
    }

    /// Whether two bytes are the same, or the same ASCII letter in another case.
    private static func sameIgnoringCase(_ p: UInt8, _ q: UInt8) -> Bool {
        p == q || ((p | 0x20) == (q | 0x20) && (p | 0x20) >= 0x61 && (p | 0x20) <= 0x7A)
    }
}
