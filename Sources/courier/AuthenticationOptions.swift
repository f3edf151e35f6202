import ArgumentParser
import Courier
import Foundation

/// `--user` and `--bearer`: the credentials `fetch` and `download` send to the origin of their
/// URL, and to no other, and `queue run` to the origin of `--origin`.
struct AuthenticationOptions: ParsableArguments {
    @Option(name: [.customShort("u"), .long], help: "A user name and password, USER:PASSWORD, that answer Basic or Digest challenges of the URL's origin (for `queue run`, of --origin).")
    var user: String?

    @Option(help: "A bearer token sent to the URL's origin (for `queue run`, to --origin) as 'Authorization: Bearer TOKEN'.")
    var bearer: String?

    /// The credential these options give, if any.
    func credential() throws -> Credential? {
        switch (user, bearer) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw CommandFailure(.invalidInput, "use only one of --user and --bearer")
        case (let user?, nil):
            guard let colon = user.firstIndex(of: ":"), colon != user.startIndex else {
                throw CommandFailure(.invalidInput, "--user must be USER:PASSWORD")
            }
            return .password(user: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
        case (nil, let token?):
            guard !token.isEmpty else { throw CommandFailure(.invalidInput, "--bearer needs a token") }
            return .bearer(token)
        }
    }

    /// Adds the credential for the origin `url` names: its own when absolute, else the base URL's.
    func apply(to configuration: inout ClientConfiguration, url: String) throws {
        guard let credential = try credential() else { return }
        if let absolute = URL(string: url), let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            configuration.authentication.add(credential, for: .origin(absolute))
        } else {
            configuration.authentication.add(credential, for: .baseURL)
        }
    }
}
