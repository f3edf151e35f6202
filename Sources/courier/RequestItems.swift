import Courier
import Foundation

/// The request items of one command line and how their fields are sent, applied to `fetch`'s
/// request: headers, query items and, when there are fields, the body.
struct RequestItems {
    /// How the fields become a body.
    enum Encoding: Equatable {
        /// One JSON object (the default).
        case json
        /// `application/x-www-form-urlencoded` (`-f`).
        case form
        /// `multipart/form-data` (`--multipart`, or `-f` and a file item, or a file item alone).
        case multipart
    }

    /// The `Accept` sent with JSON fields, as HTTPie sends it.
    static let jsonAccept = "application/json, */*;q=0.5"

    let items: [RequestItem]
    let encoding: Encoding
    /// Whether `-j` asked for JSON headers even without fields.
    let asksForJSON: Bool

    /// Parses `texts` and chooses the encoding: `form`, `json` and `multipart` are the flags given.
    init(_ texts: [String], form: Bool, json: Bool, multipart: Bool) throws(CommandFailure) {
        if [form, json, multipart].filter({ $0 }).count > 1 {
            throw CommandFailure(.invalidInput, "give one of --form (-f), --json (-j) and --multipart; on fetch, --form-items, --json-items (-j) and --multipart")
        }
        items = try texts.map { text throws(CommandFailure) in try RequestItem(text) }
        asksForJSON = json
        if multipart || items.contains(where: { $0.kind == .file }) {
            encoding = .multipart
        } else {
            encoding = form ? .form : .json
        }
    }

    /// Whether the items give a body: at least one field.
    var givesBody: Bool { items.contains { $0.kind.isData } }

    /// Adds the items to `request`: query items after `--query`'s, headers after `-H`'s, and
    /// the body, which must be the only one. A `Name:` item removes `Name` from the request and
    /// from the client's default headers (`Accept-Encoding:` sends none at all).
    func apply(to request: inout CourierRequest<CourierResponse>, configuration: inout ClientConfiguration) throws(CommandFailure) {
        for item in items {
            switch item.kind {
            case .query: request.query.append(URLQueryItem(name: item.name, value: item.value))
            case .header, .emptyHeader: request.headers.add(name: item.name, value: item.value)
            default: break
            }
        }
        if let body = try body() {
            guard request.body == nil else {
                throw CommandFailure(.invalidInput, "the request items' fields and -d/--data, --json TEXT, -F or -T would be two bodies; give one")
            }
            request.body = body
        }
        if encoding == .json, givesBody || asksForJSON {
            if !request.headers.contains("Accept") { request.headers.add(name: "Accept", value: Self.jsonAccept) }
            if !givesBody, !request.headers.contains("Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
        }
        for item in items where item.kind == .removedHeader {
            request.headers.remove(name: item.name)
            configuration.defaultHeaders.remove(name: item.name)
            if item.name.lowercased() == "content-type" { request.body?.contentType = nil }
            if item.name.lowercased() == "accept-encoding" { configuration.decompression = .disabled }
        }
    }

    /// The body the fields make, if there are any; files are checked, and read unless streamed.
    func body() throws(CommandFailure) -> CourierRequestBody? {
        let fields = items.filter { $0.kind.isData }
        switch encoding {
        case .json:
            guard !fields.isEmpty else { return nil }
            return .data(Data(try Self.jsonObject(fields).utf8), contentType: "application/json")
        case .form:
            guard !fields.isEmpty else { return nil }
            return .form(try fields.map { field throws(CommandFailure) in (field.name, try Self.text(of: field)) })
        case .multipart:
            return try multipart(fields)
        }
    }

    /// A `multipart/form-data` body: text fields and files, in the order given.
    private func multipart(_ fields: [RequestItem]) throws(CommandFailure) -> CourierRequestBody? {
        guard !fields.isEmpty else { return nil }
        var form = MultipartForm()
        for field in fields {
            if field.kind == .file {
                try PathCheck.readableFile(field.value, named: "request item \(field.label)")
                form.addFile(at: URL(fileURLWithPath: field.value), named: field.name, contentType: field.contentType)
            } else {
                form.addField(try Self.text(of: field), named: field.name)
            }
        }
        do {
            return try .multipart(form)
        } catch {
            throw CommandFailure(.invalidInput, "request items: \(error.message)")
        }
    }

    /// The text a form field sends: its value, or its file's UTF-8 text; a JSON field is refused.
    private static func text(of field: RequestItem) throws(CommandFailure) -> String {
        switch field.kind {
        case .stringFile: return try fileText(field)
        case .json, .jsonFile:
            throw CommandFailure(.invalidInput, "request item \(field.label) is JSON, but the fields go as a form (--form, --form-items, --multipart or a file item), which holds text; give name=value")
        default: return field.value
        }
    }

    /// The UTF-8 text of the file a `name=@PATH` or `name:=@PATH` item names.
    static func fileText(_ field: RequestItem) throws(CommandFailure) -> String {
        let contents = try PathCheck.contents(of: field.value, named: "request item \(field.label)")
        guard let text = String(data: contents, encoding: .utf8) else {
            throw CommandFailure(.invalidInput, "request item \(field.label): the file is not UTF-8 text")
        }
        return text
    }
}
