import Courier
import Foundation

extension EventStream {
    /// One event of a stream: its type, its data and the id it carries.
    public struct Event: Sendable, Hashable, CustomStringConvertible {
        /// The event's type, from its `event` field: `message` when it has none.
        public var type: String
        /// The event's data: its `data` fields joined by line feeds.
        public var data: String
        /// The last event id the server set when this event was dispatched (its own `id`
        /// field, or an earlier event's), or `nil` when none is set. A reconnection sends it
        /// as `Last-Event-ID`.
        public var id: String?

        /// Creates an event.
        public init(type: String = "message", data: String, id: String? = nil) {
            self.type = type
            self.data = data
            self.id = id
        }

        /// The data decoded as JSON, as many streaming APIs send it.
        ///
        /// ```swift
        /// for try await event in client.events(CourierRequest<Void>(path: "/v1/orders")) {
        ///     let order = try event.decode(Order.self)
        /// }
        /// ```
        ///
        /// - Throws: ``Courier/CourierError`` of kind ``Courier/CourierError/Kind/decodingFailed``, whose
        ///   message says where the data did not fit `Value`.
        public func decode<Value: Decodable>(_ value: Value.Type = Value.self, using decoder: JSONDecoder = JSONDecoder()) throws(CourierError) -> Value {
            do {
                return try decoder.decode(Value.self, from: Data(data.utf8))
            } catch {
                throw CourierError(.decodingFailed, "The data of a \(type) event is not the JSON of \(Value.self): \(error)", underlyingError: error)
            }
        }

        /// The event as a server would send it: `event`, `id` and `data` lines and an empty
        /// line; a type of `message` and a missing id are left out.
        public var description: String {
            var text = ""
            if type != "message" { text += "event: \(type)\n" }
            if let id { text += "id: \(id)\n" }
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            return text + "\n"
        }
    }
}
