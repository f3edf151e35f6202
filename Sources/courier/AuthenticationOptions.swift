import ArgumentParser
import Courier
import Foundation

/// `--user` and `--bearer`: the credentials `fetch` and `download` send to the origin of their
/// URL, and to no other, and `queue run` to the origin of `--origin`.
struct AuthenticationOptions: ParsableArguments {
    @Option(
        name: [.customShort("u"), .long],
        help:
            "A user name and password, USER:PASSWORD, that answer Basic or Digest challenges of the URL's origin (for `queue run`, of --origin). With USER alone the password comes from the netrc file, if given, else it is asked for on the terminal."
    )
    var user: String?

    @Option(help: "A bearer token sent to the URL's origin (for `queue run`, to --origin) as 'Authorization: Bearer TOKEN'.")
    var bearer: String?

    /// Checks the options as given, without asking for a password.
    func check() throws {
        if user != nil, bearer != nil { throw CommandFailure(.invalidInput, "use only one of --user and --bearer") }
        if let user, user.isEmpty || user.hasPrefix(":") {
            throw CommandFailure(.invalidInput, "--user needs a user name: USER:PASSWORD, or USER to be asked for the password")
        }
        if bearer?.isEmpty == true { throw CommandFailure(.invalidInput, "--bearer needs a token") }
    }

    /// The credential these options give, if any: `--user USER:PASSWORD` or `--bearer` as they
    /// are; `--user USER` with the password of `netrc`'s entry for `host` and `USER`, else the
    /// password asked for on the terminal; no option, `netrc`'s entry for `host`.
    func credential(netrc: Netrc? = nil, host: String? = nil) throws -> Credential? {
        try check()
        if let token = bearer { return .bearer(token) }
        if let user {
            if let colon = user.firstIndex(of: ":") {
                return .password(user: String(user[..<colon]), password: String(user[user.index(after: colon)...]))
            }
            if let host, let password = netrc?.entry(forHost: host, login: user)?.password { return .password(user: user, password: password) }
            return .password(user: user, password: try PasswordPrompt.password(for: user))
        }
        guard let host, let entry = netrc?.entry(forHost: host), let login = entry.login, !login.isEmpty else { return nil }
        guard !login.contains(":") else {
            throw CommandFailure(.invalidInput, "the netrc entry for \(host) has a login with a ':', which Basic authentication cannot carry")
        }
        return .password(user: login, password: try entry.password ?? PasswordPrompt.password(for: login))
    }

    /// Adds the credential for the origin `url` names: its own when absolute, else the base
    /// URL's. The netrc entry of `netrc`, if given, is the one for that origin's host.
    func apply(to configuration: inout ClientConfiguration, url: String, netrc: NetrcOptions? = nil) throws {
        let absolute = URL(string: url).flatMap { url in
            ["http", "https"].contains(url.scheme?.lowercased() ?? "") ? url : nil
        }
        let host = (absolute ?? configuration.baseURL)?.host(percentEncoded: false)
        guard let credential = try credential(netrc: try netrc?.load(), host: host) else { return }
        if let absolute {
            configuration.authentication.add(credential, for: .origin(absolute))
        } else {
            configuration.authentication.add(credential, for: .baseURL)
        }
    }
}
