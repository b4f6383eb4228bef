import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP
import OnairPlanner
import OnairPreview
import OnairTestSupport
import OnairValidation
import Synchronization
import Testing

/// preview.jpg before the run is live: the picture `onair preview` draws (``PlannedPreviews``,
/// libav for real), marked planned; once live, the run's own picture, marked live.
@Suite("Previews before a run is live")
struct PlannedPreviewTests {
    /// A project whose pipeline `show` sends a red test source to `youtube` (16:9) and a 9:16 crop
    /// of it to `archive`, the destinations ``ScriptedRun`` reports.
    static func previews() throws -> (PlannedPreviews, ScratchProject) {
        let project = try ScratchProject()
        try project.write("Pipelines/show.yaml", """
            sources:
              red: {kind: test, pattern: color, color: "#FF0000", size: 320x180, fps: 30, tone: false}
            overlays:
              room: {kind: real-scene, camera: red}
            active: room
            quality: {width: 320, height: 180, fps: 30, video: {bitrate: 300k, profile: main}}
            destinations:
              youtube: {kind: record, path: ../out/youtube.mkv}
              archive:
                kind: record
                path: ../out/archive.mkv
                quality: {width: 180, height: 320, fps: 30, video: {bitrate: 300k, profile: main}}
                canvas: {aspect: "9:16"}

            """)
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode, log: log)
        let spec = try #require(loaded.pipeline("show"), "\(log.all)")
        let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: .validate, secretProblem: Planner.readingSecrets(environment: [:], projectRoot: project.root),
                              projectRoot: project.root)
        let checked = CheckedPlanner(planner: planner, projectRoot: project.root, runStart: RunStart(instant: Date(), now: Date()))
        let timeline = checked.timeline(of: spec, log: log)
        return (PlannedPreviews(spec: spec, timeline: timeline, planner: planner, projectRoot: project.root), project)
    }

    /// The JPEG's mean colour (Y, U, V), read back by ffprobe.
    static func colour(of jpeg: Data) async throws -> (y: Double, u: Double, v: Double) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("onair-planned-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        try jpeg.write(to: file)
        let frame = try #require(await FFprobe.frameColours(of: file.path)?.first, "ffprobe could not read the picture")
        return (frame.y, frame.u, frame.v)
    }

    @Test("while the run prepares or starts: the planned picture of each destination, marked planned, red as the scene is")
    func beforeTheRun() async throws {
        let (previews, project) = try Self.previews()
        defer { project.remove() }
        var settings = APIServer.Settings()
        settings.plannedPreviews = previews
        for state in [RunState.preparing, .starting] {
            let run = ScriptedRun()
            run.current.withLock { $0.state = state }
            // No live picture exists yet: the planned one must not depend on it.
            run.previewProblem.withLock { $0 = .unavailable(reason: "no picture yet") }
            try await withServer(run, settings: settings) { base in
                for name in ["youtube", "archive"] {
                    let reply = try await HTTP.send(base + "/api/v1/destinations/\(name)/preview.jpg", timeout: 60)
                    #expect(reply.status == 200, "\(state) \(name): \(reply.status) \(reply.text.prefix(200))")
                    #expect(reply.header("Content-Type") == "image/jpeg" && reply.header("X-Picture-Source") == "planned")
                    #expect(reply.body.starts(with: [0xFF, 0xD8]), "a JPEG")
                    let colour = try await Self.colour(of: reply.body)
                    #expect(colour.v > 200 && colour.u < 128, "\(name) is red: \(colour)")
                }
            }
        }
    }

    @Test("each destination's own picture: the 9:16 crop is tall, the 16:9 one wide, as onair preview draws them")
    func shapes() async throws {
        let (previews, project) = try Self.previews()
        defer { project.remove() }
        let wide = try #require(try await previews.picture(of: "youtube", combination: nil, atMs: 0))
        let tall = try #require(try await previews.picture(of: "archive", combination: nil, atMs: 0))
        #expect(wide.width > wide.height && tall.width < tall.height, "\(wide.width)x\(wide.height), \(tall.width)x\(tall.height)")
        #expect(wide.encoding == .jpeg(maxSide: 640))
        #expect(try await previews.picture(of: "nowhere", combination: nil, atMs: 0) == nil)
    }

    @Test("once live: the run's own picture, marked live; a destination not started yet keeps the planned one")
    func onceLive() async throws {
        let (previews, project) = try Self.previews()
        defer { project.remove() }
        var settings = APIServer.Settings()
        settings.plannedPreviews = previews
        let run = ScriptedRun()
        run.current.withLock { $0.destinations[1].state = .idle }
        try await withServer(run, settings: settings) { base in
            let live = try await HTTP.send(base + "/api/v1/destinations/youtube/preview.jpg")
            #expect(live.status == 200 && live.header("X-Picture-Source") == "live" && live.body == ScriptedRun.jpeg)
            let idle = try await HTTP.send(base + "/api/v1/destinations/archive/preview.jpg", timeout: 60)
            #expect(idle.status == 200 && idle.header("X-Picture-Source") == "planned" && idle.body != ScriptedRun.jpeg)
            #expect(try await HTTP.send(base + "/api/v1/destinations/nowhere/preview.jpg").status == 404)
        }
    }

    @Test("without planned previews a run that has no picture yet answers 503, as before")
    func withoutPlanned() async throws {
        let run = ScriptedRun()
        run.current.withLock { $0.state = .starting }
        run.previewProblem.withLock { $0 = .unavailable(reason: "no picture yet") }
        try await withServer(run) { base in
            let reply = try await HTTP.send(base + "/api/v1/destinations/youtube/preview.jpg")
            #expect(reply.status == 503 && reply.header("Retry-After") == "1")
        }
    }
}
