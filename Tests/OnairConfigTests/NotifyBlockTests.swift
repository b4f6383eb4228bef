import Foundation
import OnairControl
import OnairTestSupport
import Testing
@testable import OnairConfig

/// The pipeline's `notify:` block: alert targets, their events, format and secret, and
/// targets reused from Presets/.
@Suite("notify: alert targets")
struct NotifyBlockTests {
    /// The valid pipeline with `notify:` from line 10 on.
    static func pipeline(notify: String) -> String {
        Fixtures.validPipeline + "\nnotify:\n" + notify
    }

    @Test("url, events, format, secret, timeout and queue are decoded")
    func decoded() throws {
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(notify: """
              ops: {url: "https://hooks.example.com/x", events: [destination.failed, "input.*"], format: slack, secret: {env: OPS_WEBHOOK_SECRET}, timeout: 5s, queue: 20}
              pager: {url: "http://127.0.0.1:9000/onair", events: ["*"]}
            """))
        #expect(loaded.errors.isEmpty, "\(loaded.dump)")
        let targets = try #require(loaded.project.pipeline("show")?.notify)
        #expect(targets.map(\.name) == ["ops", "pager"])
        let ops = targets[0]
        #expect(ops.url.value == "https://hooks.example.com/x")
        #expect(ops.events.patterns == ["destination.failed", "input.*"])
        #expect(ops.format == .slack && ops.timeoutMs == 5000 && ops.queue == 20)
        #expect(ops.secret?.origin == .environment("OPS_WEBHOOK_SECRET"))
        #expect(targets[1].format == .json && targets[1].timeoutMs == NotifySpec.defaultTimeoutMs && targets[1].secret == nil)
    }

    @Test("every event a run publishes is one notify: accepts by name (schedule.skipped, source.clip… were refused before)")
    func everyEventAccepted() throws {
        let names = EventName.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(notify: """
              ops: {url: "https://hooks.example.com/x", events: [\(names), "schedule.*", "source.*"]}
            """))
        #expect(loaded.errors.isEmpty, "\(loaded.dump)")
        let filter = try #require(loaded.project.pipeline("show")?.notify.first?.events)
        #expect(EventName.allCases.allSatisfy { filter.selects($0.rawValue) })
    }

    @Test("an event name that is no event is an error at its place, with did-you-mean")
    func unknownEvent() throws {
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(notify: """
              ops: {url: "https://hooks.example.com/x", events: [destination.faild, run.stopped, "imput.*"]}
            """))
        #expect(loaded.codes == ["unknown-event", "unknown-event"], "\(loaded.dump)")
        let first = try #require(loaded.diagnostics.first)
        #expect(first.message == "'destination.faild' in the events of notify target 'ops' names no event")
        #expect(first.suggestion == "did you mean 'destination.failed'?")
        #expect(first.location.line == 11)
        #expect(loaded.diagnostics[1].suggestion == "did you mean 'input.*'?")
    }

    @Test("patterns: * and families select what they name, stats and libav.log only when named exactly")
    func patterns() {
        let all = NotifyEventFilter(["*"])
        #expect(all.selects("destination.failed") && all.selects("run.stopped"))
        #expect(!all.selects("stats") && !all.selects("libav.log"))
        #expect(NotifyEventFilter(["input.*"]).selects("input.lost") && !NotifyEventFilter(["input.*"]).selects("run.stopped"))
        #expect(NotifyEventFilter(["*.failed"]).selects("overlay.failed") && !NotifyEventFilter(["*.failed"]).selects("overlay.applied"))
        #expect(NotifyEventFilter(["stats"]).selects("stats") && !NotifyEventFilter(["libav.*"]).selects("libav.log"))
    }

    @Test("a url that is not http(s), no events, a literal secret: located errors")
    func mistakes() throws {
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(notify: """
              a: {url: "ftp://example.com/x", events: [run.stopped]}
              b: {url: "https://example.com/x", events: []}
              c: {url: "https://example.com/x", events: [run.stopped], secret: whsec-SENTINEL-9c1e}
            """))
        #expect(loaded.codes == ["bad-url", "no-events", "literal-key"], "\(loaded.dump)")
        #expect(!loaded.report(.human).contains("SENTINEL"))
        #expect(loaded.diagnostics[2].message == "notify target 'c' has a literal webhook secret; secrets must not be written in configuration files")
        #expect(loaded.diagnostics[2].suggestion?.contains("secret: {env: C_WEBHOOK_SECRET}") == true)
    }

    @Test("a target reused from Presets/ with extends, overriding its events")
    func preset() throws {
        let project = try Fixtures.project(
            pipeline: Self.pipeline(notify: "  ops: {extends: team-slack, events: [run.stopped]}\n"),
            extra: ["Presets/notify.yaml": """
                notify:
                  team-slack: {url: "https://hooks.slack.com/services/T/B/X", events: ["*"], format: slack}
                """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.errors.isEmpty, "\(loaded.dump)")
        let ops = try #require(loaded.project.pipeline("show")?.notify.first)
        #expect(ops.format == .slack && ops.events.patterns == ["run.stopped"] && ops.url.value.hasPrefix("https://hooks.slack.com"))
    }

    @Test("a broken notify preset is reported on its own, once")
    func brokenPreset() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/notify.yaml": """
            notify:
              team: {url: "https://example.com", events: [run.stoped]}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-event"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location.file == "Presets/notify.yaml")
    }

    @Test("a webhook secret file is read as the API token is: only when others can't read it")
    func secretFile() throws {
        let project = try ScratchProject(files: ["hook.secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"])
        defer { project.remove() }
        let reference = SecretReference(origin: .file("hook.secret"), location: SourceLocation(file: "", line: 0, column: 0))
        chmod(project.file("hook.secret").path, 0o644)
        #expect(throws: SecretReadProblem.self) { try reference.read(environment: [:], projectRoot: project.root, what: "the webhook secret") }
        chmod(project.file("hook.secret").path, 0o600)
        let value = try reference.read(environment: [:], projectRoot: project.root, what: "the webhook secret")
        #expect(value == "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    }
}
