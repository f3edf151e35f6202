/// A value kept in a reference that copies of its owner share until one of them writes.
///
/// Courier's large value types (``CourierResponse``, ``CourierHTTPRequest``) keep their fields in one, so
/// that passing them through the pipeline costs a reference count instead of a copy of every
/// field, and their async frames stay small. Sharing one across threads is safe because a box
/// is written only while a single owner holds it: an owner that shares its box writes to a
/// copy (``unique(_:)``).
final class CopyOnWrite<Value>: @unchecked Sendable {
    /// The value; written only through ``unique(_:)``.
    var value: Value

    init(_ value: Value) { self.value = value }

    /// `box`, replaced first by a copy of its own when another owner shares it.
    static func unique(_ box: inout CopyOnWrite) -> CopyOnWrite {
        if !isKnownUniquelyReferenced(&box) { box = CopyOnWrite(box.value) }
        return box
    }
}
