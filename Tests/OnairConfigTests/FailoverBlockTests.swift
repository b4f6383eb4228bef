import Foundation
import Testing
@testable import OnairConfig

/// A source's `failover:` block: its backups, conditions and times, and every way it can be
/// wrong, each reported where it is written.
@Suite("failover: backups of a live source")
struct FailoverBlockTests {
    /// The valid pipeline with `sources` (lines indented under `sources:`, from line 3) in place
    /// of its camera, and `inputLoss` at the end.
    static func pipeline(_ sources: String, inputLoss: String = "") -> String {
        Fixtures.validPipeline.replacingOccurrences(of: "  camera: {kind: test, size: 1280x720, fps: 30}", with: sources) + "\n" + inputLoss
    }

    static func load(_ sources: String, inputLoss: String = "") throws -> Loaded {
        try Fixtures.loading(pipeline: pipeline(sources, inputLoss: inputLoss))
    }

    @Test("the issue's example decodes: backups in order, all three conditions, 1 s and 3 s")
    func decodes() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [phone], when: [loss, black, silence], after: 1s, clear: 3s}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone"}
            """)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let failover = try #require(loaded.project.pipeline("show")?.source("camera")?.failover)
        #expect(failover.backups.map(\.value) == ["phone"])
        #expect(failover.backups[0].location == at(3, 74))
        #expect(failover.when == [.loss, .black, .silence])
        #expect(failover.afterMs == 1000 && failover.clearMs == 3000)
    }

    @Test("defaults: every condition, after 1s, clear 3s; a single backup may be written as a word")
    func defaults() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: phone}}
              phone: {kind: network, url: "rtmp://example.com/live/phone"}
            """)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let failover = try #require(loaded.project.pipeline("show")?.source("camera")?.failover)
        #expect(failover.backups.map(\.value) == ["phone"])
        #expect(failover.when == FailoverCondition.allCases)
        #expect(failover.afterMs == FailoverSpec.defaultAfterMs && failover.clearMs == FailoverSpec.defaultClearMs)
    }

    @Test("an unknown backup is reported at its name, with a did-you-mean")
    func unknownBackup() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [phon]}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone"}
            """)
        let problem = try #require(loaded.with(code: "unknown-reference").first, "\(loaded.dump)")
        #expect(problem.location == at(3, 74))
        #expect(problem.message.contains("backup of 'camera'"))
        #expect(problem.suggestion?.contains("phone") == true)
    }

    @Test("itself, twice, a chain, a cycle, a shared backup, a still image, a test source: each an error at the backup")
    func wrongBackups() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [camera, phone, phone]}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone", failover: {backups: [camera]}}
              wide: {kind: network, url: "srt://10.0.0.2:9000", failover: {backups: [tablet, logo, bars]}}
              second: {kind: network, url: "srt://10.0.0.3:9000", failover: {backups: [tablet]}}
              tablet: {kind: network, url: "srt://10.0.0.4:9000"}
              logo: {kind: file, path: logo.png}
              bars: {kind: test, size: 1280x720}
            """)
        #expect(loaded.with(code: "failover-self").map(\.location) == [at(3, 74)], "\(loaded.dump)")
        #expect(loaded.with(code: "failover-duplicate").map(\.location) == [at(3, 89)])
        // camera ↔ phone: each is the other's backup.
        #expect(loaded.with(code: "failover-cycle").count == 2)
        #expect(loaded.with(code: "failover-shared").map(\.location) == [at(6, 76)])
        #expect(loaded.with(code: "failover-still").count == 1)
        #expect(loaded.with(code: "failover-test").count == 1)
    }

    @Test("a backup with backups of its own: the fix lists the whole chain on the primary")
    func chain() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [phone]}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone", failover: {backups: [tablet]}}
              tablet: {kind: network, url: "srt://10.0.0.4:9000"}
            """)
        let problem = try #require(loaded.with(code: "failover-chain").first, "\(loaded.dump)")
        #expect(problem.suggestion?.contains("backups: [phone, tablet]") == true)
    }

    @Test("unknown conditions, too short times, an empty list: located errors from the schema")
    func values() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [phone], when: [loss, dark], after: 50ms, clear: 2}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone"}
            """)
        let unknown = try #require(loaded.with(code: "unknown-value").first, "\(loaded.dump)")
        #expect(unknown.location == at(3, 95))
        #expect(unknown.suggestion?.contains("black") == true)
        #expect(loaded.with(code: "out-of-range").map(\.location) == [at(3, 109)])
        #expect(loaded.with(code: "wrong-type").first?.suggestion == "add a unit: 2s or 2ms")
        let empty = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", failover: {backups: [], when: []}}
            """)
        #expect(empty.with(code: "failover-empty").count == 2, "\(empty.dump)")
    }

    @Test("failover only on live sources; 'backups' is required")
    func placement() throws {
        let loaded = try Self.load("""
              camera: {kind: test, size: 1280x720, failover: {backups: [phone]}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone", failover: {after: 1s}}
            """)
        #expect(loaded.with(code: "unknown-key").first?.location == at(3, 40), "\(loaded.dump)")
        #expect(loaded.with(code: "missing-key").first?.message.contains("'backups'") == true)
    }

    @Test("warnings say what onair does: a backup of another size is scaled, another rate is converted, no sound is silence; a late failover")
    func warnings() throws {
        let loaded = try Self.load("""
              camera: {kind: listen, url: "srt://0.0.0.0:9000", size: 1920x1080, fps: 30, failover: {backups: [phone, cam2], after: 2s}}
              phone: {kind: listen, url: "rtmp://0.0.0.0:1935/live/phone", size: 720x1280, fps: 25}
              cam2: {kind: device, device: /dev/video0}
            """)
        #expect(loaded.errors.isEmpty, "\(loaded.dump)")
        #expect(loaded.with(code: "failover-size").first?.message.contains("scales the backup's pictures to 1920x1080") == true)
        #expect(loaded.with(code: "failover-fps").count == 1)
        #expect(loaded.with(code: "failover-no-sound").first?.message.contains("cam2") == true)
        // input_loss.after is 2 s by default: the held picture would come first.
        #expect(loaded.with(code: "failover-late").count == 1)
    }

    @Test("the schema has the block, so onair schema and editors know it")
    func schema() throws {
        let listen = try #require(ConfigSchema.source.variant("listen"))
        let field = try #require(listen.fields.first { $0.name == "failover" })
        guard case .object(let failover) = field.type else {
            Issue.record("failover is not a mapping")
            return
        }
        #expect(failover.fields.map(\.name) == ["backups", "when", "after", "clear"])
        let json = JSONSchema.document(for: .pipeline)
        #expect(json.contains("\"silence\"") && json.contains("\"backups\""))
    }
}
