import ArgumentParser
import CourierDemoServer
import Foundation
import Testing

@testable import courier

/// ``FetchLine`` reads curl's everyday lines without ArgumentParser; whatever it reads must be
/// the command ArgumentParser makes of the same line, and whatever it cannot read it leaves to
/// ArgumentParser.
@Suite("courier: everyday fetch lines read without ArgumentParser")
struct FetchLineTests {
    static let url = "http://127.0.0.1:9/x"

    /// ArgumentParser's reading of `line` as `fetch`, or `nil` when it refuses the line.
    private func parsedByArgumentParser(_ line: [String]) async -> FetchCommand? {
        await CourierCLI.parsing.take { try? FetchCommand.parseAsRoot(line) as? FetchCommand }
    }

    /// Checks that ``FetchLine`` reads `line` as ArgumentParser does, when it reads it at all;
    /// returns whether it read it.
    @discardableResult
    private func expectSameReading(_ line: [String], sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        guard let fast = FetchLine.command(line) else { return false }
        let parsed = await parsedByArgumentParser(line)
        #expect(parsed != nil, "ArgumentParser refuses \(line), which FetchLine read", sourceLocation: sourceLocation)
        if let parsed {
            #expect(String(describing: fast) == String(describing: parsed), "\(line)", sourceLocation: sourceLocation)
        }
        return true
    }

    /// Every spelling of every option and flag of `fetch`, as `courier fetch
    /// --experimental-dump-help` lists them, with whether it takes a value.
    private func spellingsOfFetch() async throws -> [(spelling: String, takesValue: Bool)] {
        let run = await courier("fetch", "--experimental-dump-help")
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.raw) as? [String: Any])
        let command = try #require(object["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        var spellings: [(String, Bool)] = []
        for argument in arguments {
            let kind = try #require(argument["kind"] as? String)
            for name in argument["names"] as? [[String: Any]] ?? [] {
                let text = try #require(name["name"] as? String)
                let prefix = name["kind"] as? String == "long" ? "--" : "-"
                spellings.append((prefix + text, kind == "option"))
            }
        }
        return spellings
    }

    @Test func aBareURLIsTheCommandArgumentParserMakesWithEveryPropertySet() async throws {
        let fast = try #require(FetchLine.command([Self.url]))
        let parsed = try #require(await parsedByArgumentParser([Self.url]))
        // A property left in its definition would stop the process when read.
        #expect(!String(describing: fast).contains("definition"), "\(fast)")
        #expect(String(describing: fast) == String(describing: parsed))
        #expect(fast.url == Self.url && fast.client.transport == .ahc && !fast.client.silent)
    }

    @Test func everySpellingOfFetchAloneTwiceOrWithAnyValueIsReadAsArgumentParserReadsIt() async throws {
        let spellings = try await spellingsOfFetch()
        #expect(spellings.count > 80, "\(spellings.map(\.spelling))")
        var read = 0
        for (spelling, takesValue) in spellings {
            var lines: [[String]] = [[spelling, Self.url], [Self.url, spelling], [spelling, spelling, Self.url], [spelling + "=1", Self.url]]
            if takesValue {
                for value in ["1", "0", "X-A: b", "", "-1", "1e400"] {
                    lines += [[spelling, value, Self.url], [Self.url, spelling, value], [spelling + "=" + value, Self.url]]
                }
                lines += [[spelling, "1", spelling, "2", Self.url], [spelling, Self.url, "item=1"], [Self.url, spelling, "--", "x"]]
            }
            for line in lines where await expectSameReading(line) { read += 1 }
        }
        // The reader is in use: most lines that give one everyday option are read by it.
        #expect(read > 150, "only \(read) lines were read without ArgumentParser")
    }

    @Test func clustersOfShortFlagsAreReadAsArgumentParserReadsThem() async throws {
        let letters = try await spellingsOfFetch().map(\.spelling).filter { $0.count == 2 }.map { $0.dropFirst() }
        var read = 0
        for first in letters {
            for second in letters where await expectSameReading(["-" + first + second, Self.url]) { read += 1 }
        }
        #expect(read > 20, "only \(read) clusters were read without ArgumentParser")
    }

    @Test(arguments: [
        ["-d", "a=1", url], ["-u", "user:pw", url], ["-I", url], ["-O", url], ["-s", "-o", "f", "-w", "%{http_code}", url],
        ["-b", "jar", "-c", "jar", url], ["-sSL", url], ["-fsSL", url], ["-H", "Accept: text/plain", "-X", "PUT", "--data-binary", "@f", url],
        [url, "-i", "--max-time", "2.5", "--retry", "3", "--compressed"], ["--data-urlencode", "q=a b", "--json", "{}", url],
    ])
    func curlsEverydayLinesAreReadWithoutArgumentParser(line: [String]) async throws {
        #expect(await expectSameReading(line), "\(line) was left to ArgumentParser")
    }

    @Test(arguments: [
        ["--", url], [url, "name=value"], ["-o", "-", url], ["--max-time", "0", url], ["--retry", "101", url], ["-s", "-s", url],
        ["--silent=yes", url], ["-h"], ["--version"], [url, "--pretty", "none"], ["-so", "f", url], ["-o"], [], ["-k", url], ["-1", url],
    ])
    func anyOtherLineIsLeftToArgumentParser(line: [String]) {
        #expect(FetchLine.command(line) == nil)
    }

    @Test func theCacheModesInTheHelpTextAreEveryModeArgumentParserAccepts() async {
        #expect(FetchCacheOptions.Mode.names == FetchCacheOptions.Mode.allValueStrings.joined(separator: ", "))
        let help = await courier("fetch", "--help")
        #expect(help.stdout.contains("cached-then-fresh") && help.stdout.contains("return-cache-else-load"), "\(help.stdout)")
    }

    @Test func theToolRunsALineReadWithoutArgumentParserAsItRunsAnyOther() async throws {
        try await withServer { server in
            let url = server.url("/anything").absoluteString
            let fast = await courier("-s", "-d", "a=1", "-H", "X-Test: 1", "-w", "%{http_code}", "-o", "/dev/null", url)
            // The same request, with `--pretty`, which FetchLine leaves to ArgumentParser.
            let parsed = await courier("fetch", "--silent", "--data=a=1", "--header", "X-Test: 1", "-w", "%{http_code}", "-o", "/dev/null", "--pretty", "none", url)
            #expect(fast.status == 0 && parsed.status == 0, "\(fast.stderr) \(parsed.stderr)")
            #expect(fast.stdout == "200" && parsed.stdout == "200")
            let requests = server.receivedRequests.suffix(2)
            #expect(requests.map(\.method) == ["POST", "POST"])
            #expect(requests.map(\.bodyString) == ["a=1", "a=1"])
            #expect(requests.map { $0.header("X-Test") } == ["1", "1"])
        }
    }
}
