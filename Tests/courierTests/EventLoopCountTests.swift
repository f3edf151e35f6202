import Testing

@testable import courier

@Suite("courier: event loops started by command")
struct EventLoopCountTests {
    @Test(arguments: [["fetch", "http://127.0.0.1:1/"], ["download", "http://127.0.0.1:1/x"], ["cache", "stats"], ["--help"], ["http://127.0.0.1:1/"]])
    func aCommandThatSendsOneRequestAtATimeStartsOneLoop(arguments: [String]) {
        #expect(EventLoopCount.suggestion(for: arguments, environment: [:]) == 1)
    }

    @Test(arguments: [["batch", "requests.json"], ["queue", "run"], ["demo"], []])
    func aCommandThatSendsManyKeepsSwiftNIOsDefault(arguments: [String]) {
        #expect(EventLoopCount.suggestion(for: arguments, environment: [:]) == nil)
    }

    @Test func theEnvironmentVariableDecidesWhenSet() {
        #expect(EventLoopCount.suggestion(for: ["fetch", "http://127.0.0.1:1/"], environment: ["NIO_SINGLETON_GROUP_LOOP_COUNT": "4"]) == nil)
    }
}
