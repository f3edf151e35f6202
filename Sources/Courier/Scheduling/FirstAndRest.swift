/// A few values in order, most often one or none, which are kept without an allocation; an
/// array holds the rest.
struct FirstAndRest<Element>: Sequence, ExpressibleByArrayLiteral {
    private var first: Element?
    private var others: [Element] = []

    init() {}

    init(arrayLiteral elements: Element...) {
        for element in elements { append(element) }
    }

    var isEmpty: Bool { first == nil }

    var count: Int { first == nil ? 0 : 1 + others.count }

    mutating func append(_ element: Element) {
        if first == nil { first = element } else { others.append(element) }
    }

    func makeIterator() -> Iterator {
        Iterator(first: first, others: others)
    }

    struct Iterator: IteratorProtocol {
        fileprivate var first: Element?
        fileprivate let others: [Element]
        fileprivate var index = 0

        mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            guard index < others.count else { return nil }
            defer { index += 1 }
            return others[index]
        }
    }
}

extension FirstAndRest: Equatable where Element: Equatable {}
extension FirstAndRest: Sendable where Element: Sendable {}
