import Testing

@testable import courier

/// `courier demo` is the README's first command: every step must run to its end.
@Suite("courier demo")
struct DemoCommandTests {
    @Test func everyStepRunsAndTheDemoEndsWithStatus0() async {
        let run = await courier("demo")
        #expect(run.status == 0, "\(run.stdout.suffix(1500))\n\(run.stderr)")
        #expect(run.stdout.contains("Demo finished: every step ran"))
        // The resumed download, the step that a retry rule of its own once broke.
        #expect(run.stdout.contains("4194304 bytes in 3 attempts"), "\(run.stdout)")
        // The event stream: every event once, resumed after each drop.
        #expect(run.stdout.contains("6 events with ids 1, 2, 3, 4, 5, 6; reconnections sent Last-Event-ID 2, 4, 6"), "\(run.stdout)")
    }
}
