/// A first-in, first-out queue: an array read from a moving head, compacted once the consumed
/// part outweighs the rest, so that every operation costs O(1) amortised.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    /// Whether no element is queued.
    var isEmpty: Bool { head == storage.count }

    /// The oldest element, if any.
    var first: Element? { isEmpty ? nil : storage[head] }

    /// Adds `element` behind the others.
    mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the oldest element, if any.
    @discardableResult
    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1_024)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Keeps only the elements for which `isIncluded` is `true`, in their order.
    mutating func filter(_ isIncluded: (Element) -> Bool) {
        storage = storage[head...].filter(isIncluded)
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
