import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// A mistake written in a preset is reported once, by the check of the preset that writes it,
/// however many presets and pipeline mappings reach it through `extends:`; a problem that only
/// the combination brings about is still reported where it arises.
@Suite("Mistakes inherited through extends")
struct InheritedMistakeTests {
    /// A pipeline whose overlays and destinations the tests replace.
    static func pipeline(quality: String = "720p30", overlays: String = "room: {kind: real-scene, camera: camera}",
                         destinations: String = "archive: {kind: record, path: ../recordings/show.mkv}", extra: String = "") -> String {
        """
        sources:
          camera: {kind: test, size: 1280x720}
        overlays:
          \(overlays)
        active: \(overlays.prefix { $0 != ":" })
        quality: \(quality)
        destinations:
          \(destinations)
        \(extra)
        """
    }

    /// `base`, with a frame rate out of range, and `other`, which extends it.
    static let chainedQualityPresets = """
        quality:
          base: {width: 1280, height: 720, fps: 500, video: {bitrate: 3000k, profile: main}}
          other: {extends: base, video: {bitrate: 4000k}}
        """

    @Test func aQualityPresetsMistakeIsReportedOnceThroughAChainOfPresets() throws {
        let project = try ScratchProject(files: [
            "Presets/quality.yaml": Self.chainedQualityPresets,
            "Pipelines/p.yaml": """
                sources:
                  cam: {kind: test, size: 1280x720}
                overlays:
                  room: {kind: real-scene, camera: cam}
                active: room
                quality: other
                destinations:
                  rec: {kind: record, path: ../out/rec.mkv}
                """,
        ])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.description) == [
            "Presets/quality.yaml:2:41: error: 'fps' in quality preset 'base' is 500; it must be from 1 to 120 [out-of-range]",
        ], "\(loaded.dump)")
    }

    @Test("a pipeline's own combinations that extend each other report a mistake once, under the one that writes it")
    func combinationsOfOnePipelineReportOnce() throws {
        // Written child first, so decoding in written order would meet the mistake in 'alt'.
        func pipeline(_ roomKey: String) -> String {
            Self.pipeline(quality: "{width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}", overlays: """
                alt: {extends: wide}
                  wide: {extends: room, auto_lighting: true}
                  room: {kind: real-scene, camera: camera, \(roomKey): true}
                """)
        }
        let loaded = try ScratchProject.loading(["Pipelines/p.yaml": pipeline("auto_lightin")])
        #expect(loaded.diagnostics.map(\.description) == [
            "Pipelines/p.yaml:6:44: error: unknown key 'auto_lightin' in overlay combination 'room' [unknown-key] — did you mean 'auto_lighting'?",
        ], "\(loaded.dump)")

        let fixed = try ScratchProject.loading(["Pipelines/p.yaml": pipeline("auto_lighting")])
        #expect(fixed.diagnostics.isEmpty, "\(fixed.dump)")
        #expect(fixed.project.pipeline("p")?.overlays.map(\.name) == ["alt", "wide", "room"], "written order is kept")
    }

    @Test func anInlineQualityExtendingTheChainDoesNotRepeatTheMistake() throws {
        let project = try ScratchProject(files: [
            "Presets/quality.yaml": Self.chainedQualityPresets,
            "Pipelines/show.yaml": Self.pipeline(
                quality: "other",
                destinations: "archive: {kind: record, path: ../recordings/show.mkv, quality: {extends: other, width: 1920, height: 1080}}"),
        ])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["'fps' in quality preset 'base' is 500; it must be from 1 to 120"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(2, 41, "Presets/quality.yaml"))
    }

    @Test func aDestinationPresetsMistakeIsReportedOnceForEveryPipelineDestinationExtendingIt() throws {
        let destinations = """
            destinations:
              archive:
                kind: record
                path: ../recordings/show.mkv
                requried: false
            """
        let pipeline = Self.pipeline(destinations: """
            archive: {extends: archive}
              copy: {extends: archive, path: ../recordings/copy.mkv}
            """)
        let project = try Fixtures.project(pipeline: pipeline, extra: [
            "Presets/destinations.yaml": destinations, "Pipelines/second.yaml": pipeline,
        ])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["unknown key 'requried' in destination 'archive'"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(5, 5, "Presets/destinations.yaml"))
        #expect(loaded.diagnostics.first?.suggestion == "did you mean 'required'?")
        // The mistake is only reported; both pipelines still decode with all their destinations.
        #expect(loaded.project.pipelines.map { $0.destinations.map(\.name) } == [["archive", "copy"], ["archive", "copy"]])
    }

    @Test func aThreeLevelChainReportsTheMistakeUnderThePresetThatWritesIt() throws {
        // Named so that the check order by name alone would meet the mistake in the grandchild first.
        let project = try Fixtures.project(
            pipeline: Self.pipeline(overlays: "studio: {extends: bright}"),
            extra: ["Presets/overlays.yaml": """
                overlays:
                  keyed:
                    kind: virtual-background
                    person: camera
                    background: {color: "#00FF00"}
                    key: {similarty: 0.3}
                  calm: {extends: keyed, key: {blend: 0.2}}
                  bright: {extends: calm, key: {spill: 0.5}}
                """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["unknown key 'similarty' in 'key' of overlay combination 'keyed'"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(6, 11, "Presets/overlays.yaml"))
        #expect(loaded.project.pipeline("show")?.overlay("studio") != nil)
    }

    @Test func aProblemACombinationBringsAboutIsReportedOnceWhereItArises() throws {
        // The URL without {key} is fine alone; it is wrong once 'keyed' adds a key, and stays
        // wrong in 'backup' and in the pipeline's 'live', which only inherit both.
        let project = try Fixtures.project(
            pipeline: Self.pipeline(destinations: "live: {extends: backup}"),
            extra: ["Presets/destinations.yaml": """
                destinations:
                  ingest: {kind: url, url: "rtmp://ingest.example.com/app/live"}
                  keyed: {extends: ingest, key: {env: INGEST_KEY}}
                  backup: {extends: keyed, required: false}
                """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["destination 'keyed' has a key but its URL has no {key}"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(2, 28, "Presets/destinations.yaml"))
    }

    @Test func aCapBelowAnInheritedBitrateIsReportedBesideTheParentsOwnMistake() throws {
        // 'capped' lowers max_bitrate below the bitrate 'fast' writes: reported at the bitrate,
        // the value it contradicts, although that location is inherited. The misspelt profile
        // is 'fast''s own mistake and is reported once, under 'fast'.
        let project = try Fixtures.project(
            pipeline: Self.pipeline(quality: "capped"),
            extra: [
                "Presets/fast.yaml": """
                    quality:
                      fast: {width: 1280, height: 720, fps: 30, video: {bitrate: 6000k, profile: mian}}
                    """,
                "Presets/capped.yaml": """
                    quality:
                      capped: {extends: fast, video: {max_bitrate: 3000k}}
                    """,
            ])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == [
            "bitrate 6000k is above max_bitrate 3000k (set at Presets/capped.yaml:2:48)",
            "'profile' in video of quality preset 'fast' can't be 'mian'",
        ], "\(loaded.dump)")
        #expect(loaded.diagnostics.map(\.code) == ["out-of-range", "unknown-value"])
        #expect(loaded.diagnostics.map(\.location) == [at(2, 62, "Presets/fast.yaml"), at(2, 78, "Presets/fast.yaml")])
    }

    @Test func aPipelinesDefaultsThatMakeAnInheritedValueWrongAreReported() throws {
        // max_delay 20s is fine under the standard 1s initial delay the preset is checked with,
        // not under the pipeline's 25s, which its own 30s maximum allows.
        let project = try Fixtures.project(
            pipeline: Self.pipeline(destinations: "archive: {extends: archive}", extra: "retry: {initial_delay: 25s}"),
            extra: ["Presets/destinations.yaml": """
                destinations:
                  archive: {kind: record, path: ../recordings/show.mkv, retry: {max_delay: 20s}}
                """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["max_delay is shorter than initial_delay in retry of destination 'archive'"],
                "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(2, 65, "Presets/destinations.yaml"))
    }

    @Test func aPlatformPresetsMistakeIsReportedOnceThroughAnotherPlatform() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/platforms.yaml": """
            platforms:
              hub: {title: Hub, ingest: {rtmp: "rtmp://ingest.example.com/live/{key}"}, video: {max_fps: 1000}}
              eu: {extends: hub, title: Hub EU}
            """])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.map(\.message) == ["'max_fps' in 'video' of platform 'hub' is 1000; it must be from 1 to 240"],
                "\(loaded.dump)")
    }

    @Test func aWithheldDiagnosticIsStillCountedAsRaised() {
        let log = DiagnosticLog()
        let here = at(3, 5), there = at(4, 5)
        let old = Diagnostic(.error, "out-of-range", "'fps' in quality preset 'child' is 500", at: here)
        let (_, raised) = log.withholding([old.key]) {
            log.report(old)
            // Same location, another rule: a different problem.
            log.report(Diagnostic(.error, "unknown-key", "unknown key 'fsp'", at: here))
            // Same rule, another location: a different problem.
            log.report(Diagnostic(.error, "out-of-range", "'width' in quality preset 'child' is 0", at: there))
        }
        #expect(log.all.map(\.code) == ["unknown-key", "out-of-range"])
        #expect(log.all.map(\.location) == [here, there])
        #expect(raised == [old.key, Diagnostic.Key(severity: .error, code: "unknown-key", location: here),
                           Diagnostic.Key(severity: .error, code: "out-of-range", location: there)])
        // Outside the check nothing is withheld.
        log.report(old)
        #expect(log.all.count == 3)
    }
}
