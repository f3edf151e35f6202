import Courier
import Foundation

/// Turns `fetch`'s options into a client configuration and a request.
struct FetchPlan {
    let command: FetchCommand

    func make() throws -> (ClientConfiguration, Request<Response>) {
        // Streamed, cached and durable runs all write -o: it is checked before any of them sends.
        if let output = command.output { try PathCheck.writableFile(output, option: "-o") }
        var configuration = try command.client.configuration()
        try command.authentication.apply(to: &configuration, url: command.url)

        var request = Request<Response>(path: command.url)
        request.validators = []
        request.query = try command.queryItems.map { item in
            guard let equals = item.firstIndex(of: "=") else { return URLQueryItem(name: item, value: nil) }
            guard equals != item.startIndex else { throw CommandFailure(.invalidInput, "--query \(item) has no name") }
            return URLQueryItem(name: String(item[..<equals]), value: String(item[item.index(after: equals)...]))
        }
        for header in command.headers {
            let (name, value) = try ClientOptions.header(header)
            request.headers.add(name: name, value: value)
        }
        if !command.compressed, !request.headers.contains("Accept-Encoding") {
            // Like curl: ask for the representation as it is, so that the body printed is the
            // one the server sent. A server that compresses anyway is still inflated.
            request.headers.add(name: "Accept-Encoding", value: "identity")
        }
        if let limit = command.limit.maxFilesize {
            // A body held whole (a report, the cache, the queue's delivery) never gets more
            // than the client's own limit, and never more than --max-filesize.
            configuration.limits.maximumBodySize = Int(clamping: min(Int64(configuration.limits.maximumBodySize), limit))
        }
        request.body = try body()
        try command.cache.apply(to: &configuration, request: &request)
        if let method = command.method {
            request.method = HTTPMethod(method)
        } else if request.body != nil {
            request.method = .post
        }
        return (configuration, request)
    }

    private func body() throws -> RequestBody? {
        let isForm = !command.formFields.isEmpty || !command.files.isEmpty
        let given = [command.data != nil, command.json != nil, isForm].filter { $0 }.count
        guard given <= 1 else {
            throw CommandFailure(.invalidInput, "use only one of --data, --json and --form/--file")
        }
        if let data = command.data {
            return .data(try read(data, option: "--data"))
        }
        if let json = command.json {
            return .data(try read(json, option: "--json"), contentType: "application/json")
        }
        let fields = try command.formFields.map { field in
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                throw CommandFailure(.invalidInput, "--form \(field) is not name=value")
            }
            return (name: String(field[..<equals]), value: String(field[field.index(after: equals)...]))
        }
        if !command.files.isEmpty {
            let files = try command.files.map { text throws(CommandFailure) in try MultipartOptions.FileField(text) }
            return try MultipartOptions(formFields: fields, files: files, arguments: CourierCLI.arguments).body()
        }
        if !fields.isEmpty {
            return .form(fields.map { ($0.name, $0.value) })
        }
        return nil
    }

    /// TEXT, or the contents of PATH for `@PATH`.
    private func read(_ argument: String, option: String) throws -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        return try PathCheck.contents(of: path, named: "\(option) @\(path)")
    }
}
