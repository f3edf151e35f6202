import Courier
import Foundation

/// curl's `-b/--cookie` and `-c/--cookie-jar`, and `--cookie-json`, Courier's own JSON cookie
/// file, as ``ClientOptions`` reads them: the cookies `fetch`, `batch` and `download` send, keep
/// and save.
struct CookieOptions {
    /// The `-b` values: `NAME=VALUE` pairs, or cookie files to read.
    var cookies: [String] = []
    /// The `-c` Netscape cookie file, or `-` for stdout.
    var cookieJar: String?
    /// The `--cookie-json` file.
    var cookieJSON: String?

    /// Where `-c -` (or `-c /dev/stdout`) has the jar written: stdout, after the response.
    static let standardOutput = URL(fileURLWithPath: "/dev/stdout")

    /// Gives `configuration` the jar these options describe, with the cookies of the `-b`
    /// files, and the `-b` cookies given on the command line. Every path is checked and every
    /// file read before anything is sent.
    func apply(to configuration: inout ClientConfiguration) throws {
        if cookieJSON != nil, cookieJar != nil {
            throw CommandFailure(.invalidInput, "give -c/--cookie-jar (a Netscape file) or --cookie-json (a JSON file), not both")
        }
        let (pairs, files) = (cookies.filter { $0.contains("=") }, cookies.filter { !$0.contains("=") })
        let jar: CookieJar?
        if let cookieJSON {
            try PathCheck.writableFile(cookieJSON, option: "--cookie-json")
            jar = try Self.reading("--cookie-json \(cookieJSON)", failing: .readError) { try CookieJar(file: URL(fileURLWithPath: cookieJSON)) }
        } else if let cookieJar, cookieJar == "-" || cookieJar == Self.standardOutput.path {
            jar = CookieJar(savingTo: Self.standardOutput, format: .netscape)
        } else if let cookieJar {
            try PathCheck.writableFile(cookieJar, option: "--cookie-jar")
            jar = CookieJar(savingTo: URL(fileURLWithPath: cookieJar), format: .netscape)
        } else {
            jar = files.isEmpty ? nil : CookieJar()
        }
        if let jar {
            for file in files {
                try Self.reading("-b \(file)", failing: .readError) { try jar.addCookies(from: URL(fileURLWithPath: file)) }
            }
            configuration.cookies = jar
        }
        if !pairs.isEmpty {
            let header = try Self.cookieHeader(pairs)
            // Added to the request itself: a redirect to another origin drops it, as it drops
            // every credential header.
            configuration.interceptors.append(
                HeaderInjector(overwrite: true) { request in
                    ["Cookie": request.headers["Cookie"].map { $0 + "; " + header } ?? header]
                })
        }
    }

    /// The `Cookie` header value of the `-b NAME=VALUE` options, in command-line order.
    static func cookieHeader(_ pairs: [String]) throws -> String {
        let parts = pairs.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for part in parts {
            guard !part.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw CommandFailure(.invalidInput, "-b \(PrintableText.escaping(part)) has a control character; give 'NAME=VALUE; NAME2=VALUE2'")
            }
            guard !part.hasPrefix("="), !part.hasPrefix(";") else {
                throw CommandFailure(.invalidInput, "-b \(part) has a cookie without a name; give 'NAME=VALUE; NAME2=VALUE2'")
            }
        }
        return parts.joined(separator: "; ")
    }

    /// Writes the jar of a configuration, if it has one to write: to its file, or to stdout
    /// for `-c -`. A jar read from `-b` files alone is not written.
    static func save(_ jar: CookieJar?) throws {
        guard let jar, let file = jar.file else { return }
        if file == standardOutput {
            Output.current.write(NetscapeCookieFormat.text(for: jar.allCookies))
            return
        }
        try reading(jar.format == .json ? "--cookie-json" : "--cookie-jar", failing: .writeError) { try jar.save() }
    }

    /// Runs `body`, a read or write of a cookie file, turning its failure into `status` (curl's
    /// read or write error) with a message named after `option`.
    private static func reading<Result>(_ option: String, failing status: ExitStatus, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as CourierError {
            throw CommandFailure(status, "\(option): \(error.message)")
        }
    }
}
