import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// The example project at the top of the repository must always load cleanly.
@Suite("Shipped project")
struct ShippedProjectTests {
    /// The folder holding Package.swift, found by walking up from this file.
    static let repositoryRoot: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            let parent = folder.deletingLastPathComponent()
            precondition(parent.path != folder.path, "no Package.swift above \(#filePath)")
            folder = parent
        }
        return folder
    }()

    static func load(only: Set<String>? = nil) -> Loaded {
        let log = DiagnosticLog()
        let project = Project.load(root: repositoryRoot, displayRoot: "", builtinPlatforms: Fixtures.builtinPlatforms,
                                   only: only, log: log)
        return Loaded(project: project, log: log)
    }

    @Test func loadsWithoutAnyDiagnostic() throws {
        let loaded = Self.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(loaded.project.pipelineNames == ["demo", "evening", "studio"])
        #expect(loaded.project.pipelines.map(\.name) == ["demo", "evening", "studio"])
        #expect(loaded.project.pipelines.allSatisfy { $0.isComplete })
        #expect(Set(loaded.project.files.keys) == [
            "Pipelines/demo.yaml", "Pipelines/evening.yaml", "Pipelines/studio.yaml",
            "Presets/destinations.yaml", "Presets/overlays.yaml", "Presets/quality.yaml", "Presets/schedules.yaml",
        ])
        let presets = loaded.project.presets
        #expect(presets.names(in: .quality) == ["1080p30", "1080p60", "720p30", "720p60", "vertical-1080", "vertical-720"])
        #expect(presets.names(in: .overlays) == ["avatar-corner", "green-screen", "room-auto-light"])
        #expect(presets.names(in: .destinations) == ["archive", "tiktok-vertical", "twitch-main", "youtube-main"])
        #expect(presets.names(in: .schedules) == ["sign-off"])
    }

    @Test func demoPipeline() throws {
        let loaded = Self.load(only: ["demo"])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        #expect(loaded.project.pipelineNames == ["demo"])
        let demo = try #require(loaded.project.pipeline("demo"))
        #expect(demo.file == "Pipelines/demo.yaml")
        #expect(demo.title == "onair demo")
        #expect(demo.sources.map(\.name) == ["camera", "presenter"])
        #expect(demo.source("camera")?.kind == .test(pattern: "testsrc2", toneHz: 440, color: nil))
        #expect(demo.source("camera")?.size == PixelSize(width: 1280, height: 720))
        #expect(demo.source("camera")?.fps == 30)
        #expect(demo.source("presenter")?.isStillImage == true)
        #expect(demo.overlays.map(\.name) == ["virtual-studio", "room", "avatar"])
        #expect(demo.active.value == "virtual-studio")
        #expect(demo.audio?.value == "camera")
        #expect(demo.overlay("room")?.kind == .realScene(camera: Located("camera", at: at(28, 13, "Pipelines/demo.yaml")), autoLighting: 0.5))
        #expect(demo.overlay("virtual-studio")?.leadSource.value == "presenter")
        #expect(demo.layers.count == 2)
        #expect(demo.layers.map(\.placement.position) == ["top-right", "bottom-left"])

        #expect(demo.quality.presetName == "720p30")
        #expect(demo.quality.size == PixelSize(width: 1280, height: 720))
        #expect(demo.quality.fps.value == 30)
        #expect(demo.quality.video.bitrate.value == 3_000_000)
        #expect(demo.quality.video.buffer.value == 6_000_000)
        #expect(demo.quality.video.profile.value == "main")
        #expect(demo.quality.video.level?.value == "3.1")
        #expect(demo.quality.video.tune == "zerolatency")

        #expect(demo.destinations.map(\.name) == ["landscape", "vertical"])
        let vertical = try #require(demo.destinations.last)
        #expect(vertical.quality?.presetName == "vertical-720")
        #expect(vertical.quality?.size == PixelSize(width: 720, height: 1280))
        #expect(vertical.canvas?.aspect.value == AspectRatio(width: 9, height: 16))
        #expect(vertical.canvas?.focus == 0.5)
        guard case .record(let path) = vertical.kind else {
            Issue.record("expected a recording, got \(vertical.kind)")
            return
        }
        #expect(path.path == "recordings/demo-9x16.mkv")
        #expect(demo.inputLoss.afterMs == 2000)
        #expect(demo.inputLoss.holdLastFrameMs == 2000)
        guard case .image(let slate) = demo.inputLoss.slate else {
            Issue.record("expected an image slate, got \(demo.inputLoss.slate)")
            return
        }
        #expect(slate.path == "assets/slate.png")
    }

    @Test func studioPipeline() throws {
        let loaded = Self.load(only: ["studio"])
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let studio = try #require(loaded.project.pipeline("studio"))
        #expect(studio.title == "Studio Live")
        #expect(studio.sources.map(\.name) == ["camera", "guest"])
        #expect(studio.source("camera")?.kind == .listen(url: "srt://0.0.0.0:9000", timeoutMs: 5000))
        #expect(studio.overlays.map(\.name) == ["room", "keyed", "avatar"])
        guard case .virtualBackground(let person, _, let key, _) = studio.overlay("keyed")?.kind else {
            Issue.record("expected 'keyed' to be a virtual background")
            return
        }
        #expect(person.value == "camera")
        #expect(person.location.file == "Presets/overlays.yaml")
        #expect(key.similarity == 0.3)
        #expect(key.blend == 0.08)
        #expect(studio.layers.count == 3)

        #expect(studio.quality.presetName == "1080p30")
        #expect(studio.quality.size == PixelSize(width: 1920, height: 1080))
        #expect(studio.quality.video.bitrate.value == 4_500_000)
        #expect(studio.quality.video.level?.value == "4.1")
        #expect(studio.quality.video.keyframeInterval.value == 2000)

        #expect(studio.destinations.map(\.name) == ["youtube", "twitch", "tiktok", "recording"])
        #expect(studio.destinations.map { $0.key?.description } ==
                ["env:YOUTUBE_STREAM_KEY", "env:TWITCH_STREAM_KEY", "env:TIKTOK_STREAM_KEY", nil])
        let tiktok = try #require(studio.destinations.first { $0.name == "tiktok" })
        #expect(!tiktok.required)
        #expect(tiktok.quality?.presetName == "vertical-1080")
        #expect(tiktok.quality?.size == PixelSize(width: 1080, height: 1920))
        #expect(tiktok.canvas?.aspect.value == AspectRatio(width: 9, height: 16))
        guard case .platform(let platform, let server, _, _) = tiktok.kind else {
            Issue.record("expected a platform destination, got \(tiktok.kind)")
            return
        }
        #expect(platform.value == "tiktok")
        #expect(server?.value == "rtmps://push.tiktokcdn.com/live/")
        let retry = RetryPolicy(initialDelayMs: 1000, maxDelayMs: 30_000, jitter: 0.2, maxAttempts: nil,
                                connectTimeoutMs: 10_000, writeTimeoutMs: 5000)
        #expect(studio.destinations.allSatisfy { $0.retry == retry })
        #expect(studio.inputLoss.holdLastFrameMs == 3000)
    }

    @Test func withoutTheBuiltInPlatformsPlatformNamesAreUnknown() throws {
        let log = DiagnosticLog()
        _ = Project.load(root: Self.repositoryRoot, displayRoot: "", builtinPlatforms: nil, log: log)
        #expect(Set(log.all.map(\.code)) == ["unknown-reference"])
        #expect(Set(log.all.map(\.message)) == ["unknown platform 'youtube'", "unknown platform 'twitch'", "unknown platform 'tiktok'"])
        #expect(log.all.allSatisfy { $0.location.file == "Presets/destinations.yaml" })
    }

    @Test func displayRootPrefixesEveryFile() throws {
        let log = DiagnosticLog()
        let project = Project.load(root: Self.repositoryRoot, displayRoot: "show-folder", builtinPlatforms: Fixtures.builtinPlatforms,
                                   log: log)
        #expect(log.all.isEmpty, "\(log.all)")
        #expect(project.pipeline("demo")?.file == "show-folder/Pipelines/demo.yaml")
        #expect(project.files.keys.allSatisfy { $0.hasPrefix("show-folder/") })
    }

    @Test func builtInPipelineIsUsedOnlyWhenAskedForAndAbsent() throws {
        let project = try ScratchProject(files: ["Presets/quality.yaml": Fixtures.qualityPresets])
        defer { project.remove() }
        let text = Fixtures.validPipeline
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: nil, only: ["extra"],
                                  builtinPipelines: ["extra": text, "unused": text], log: log)
        #expect(log.all.isEmpty, "\(log.all)")
        #expect(loaded.pipelineNames == ["extra"])
        #expect(loaded.pipeline("extra")?.file == "<built-in>/extra.yaml")
        #expect(loaded.files["<built-in>/extra.yaml"] == text)
    }
}
