import NIOConcurrencyHelpers
import NIOHTTP1

extension TestServer {
    /// Serves `body` at `/content/NAME` from now on, with `contentType`, replacing what was
    /// published there before. For bytes no route makes, such as image files.
    public func publish(_ body: [UInt8], at name: String, contentType: String) {
        contents.publish(PublishedContents.Item(body: body, contentType: contentType), at: name)
    }
}

extension TestServerRoutes {
    /// `/content/NAME?gate=G`: what ``TestServer/publish(_:at:contentType:)`` put at NAME,
    /// held until the test opens gate G when one is named; 404 when nothing is there.
    static func content(_ request: TestRequest, _ name: String) -> TestResponse {
        guard let item = request.contents.item(at: name) else {
            return .error(.notFound, "nothing is published at \(name)")
        }
        var response = TestResponse(status: .ok, headers: ["Content-Type": item.contentType], body: .bytes(item.body))
        response.gate = request.queryValue("gate")
        return response
    }
}

/// The bytes tests published on a ``TestServer``, by name.
final class PublishedContents: Sendable {
    struct Item: Sendable {
        let body: [UInt8]
        let contentType: String
    }

    private let items = NIOLockedValueBox<[String: Item]>([:])

    func publish(_ item: Item, at name: String) {
        items.withLockedValue { $0[name] = item }
    }

    func item(at name: String) -> Item? {
        items.withLockedValue { $0[name] }
    }
}
