import ArgumentParser
import Foundation

/// curl's `--netrc`, `--netrc-optional` and `--netrc-file`: the user name and password for the
/// URL's host, read from a `.netrc` file.
struct NetrcOptions: ParsableArguments {
    @Flag(name: .customLong("netrc"), help: "Take the user name and password for the URL's host from ~/.netrc (it must exist); -u wins.")
    var netrc = false

    @Flag(name: .customLong("netrc-optional"), help: "Like --netrc, but a missing file is no error.")
    var netrcOptional = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp("Like --netrc, with this file instead of ~/.netrc.", valueName: "file"))
    var netrcFile: String?

    /// Whether a netrc file is to be read.
    var isGiven: Bool { netrc || netrcOptional || netrcFile != nil }

    /// The entries of the netrc file these options name, or `nil` when none is to be read, or
    /// when it is missing and `--netrc-optional` was given.
    func load() throws -> Netrc? {
        guard isGiven else { return nil }
        let path: String
        if let netrcFile {
            path = netrcFile
        } else {
            let environment = CourierCLI.environment ?? ProcessInfo.processInfo.environment
            guard let home = environment["HOME"], !home.isEmpty else {
                if netrcOptional { return nil }
                throw CommandFailure(.invalidInput, "--netrc needs the HOME environment variable to find ~/.netrc; give --netrc-file FILE")
            }
            path = URL(fileURLWithPath: home).appendingPathComponent(".netrc").path
        }
        let option = netrcFile == nil ? "--netrc" : "--netrc-file"
        if PathCheck.kind(of: path) == .nothing {
            if netrcOptional { return nil }
            throw CommandFailure(.invalidInput, "\(option): \(path) does not exist; create it, or give --netrc-optional to go on without it")
        }
        let contents = try PathCheck.contents(of: path, named: "\(option) \(path)", limit: Netrc.maximumSize)
        do {
            return try Netrc(Array(contents))
        } catch {
            throw CommandFailure(.invalidInput, "\(option): \(path) is not a netrc file: \(error.message)")
        }
    }
}
