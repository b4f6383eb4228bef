import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation
import OnairTestSupport
import Testing

@Suite("Local files decode (rule 8)")
struct PlanMediaCheckTests {
    @Test("the demo's pictures (presenter, studio, logo, slate) all decode")
    func shippedFilesDecode() throws {
        let (plan, spec) = try plannedPipeline("demo")
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: repositoryRoot, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
    }

    @Test("a picture that is not one, and a slate that is empty, are errors where their paths are written")
    func spoiledFilesAreLocated() throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        let root = project.root
        try Data("not a picture\n".utf8).write(to: root.appendingPathComponent("assets/logo.png"))
        try Data().write(to: root.appendingPathComponent("assets/slate.png"))
        let (plan, spec) = try plannedPipeline("demo", in: root)
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: root, pipelineFile: spec.file, log: log)

        let problems = log.sorted
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.code == "media" && $0.severity == .error })
        let logo = try #require(problems.first { $0.message.contains("assets/logo.png") })
        #expect(logo.message.contains("has no picture that decodes") || logo.message.contains("can't be read"), "\(logo.message)")
        #expect(logo.location == plan.inputs.first { $0.name == "asset:assets/logo.png" }?.origin)
        let slate = try #require(problems.first { $0.message.contains("assets/slate.png") })
        #expect(slate.location == plan.inputLoss.slateOrigin && slate.location.line > 1, "\(slate.location)")
    }

    @Test("a file used only for its sound must have sound that decodes")
    func soundOnlyFileNeedsSound() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let root = project.root
        try FileManager.default.createDirectory(at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        try project.write("Pipelines/show.yaml", """
            sources:
              camera: {kind: test, size: 320x180, tone: false}
              music: {kind: file, path: ../media/music.m4a, loop: true}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            audio: music
            quality: {width: 320, height: 180, fps: 30, video: {bitrate: 300k, profile: main}}
            destinations:
              archive: {kind: record, path: ../out/show.mkv}

            """)
        for (name, source) in [("music.m4a", ["-f", "lavfi", "-i", "sine=d=1"]), ("silent.mp4", ["-f", "lavfi", "-i", "testsrc2=d=1:s=64x64"])] {
            let made = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-v", "error", "-y"] + source + [root.appendingPathComponent("media/\(name)").path],
                                                timeout: .seconds(60))
            try #require(made.status == 0, "\(made)")
        }

        let (plan, spec) = try plannedPipeline("show", in: root)
        #expect(plan.inputs.first { $0.name == "music" }?.video == nil, "music is read for its sound alone")
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: root, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")

        // The same pipeline with a picture-only file as its sound.
        var pictureOnly = plan
        for index in pictureOnly.inputs.indices where pictureOnly.inputs[index].name == "music" {
            pictureOnly.inputs[index].kind = .file(path: "media/silent.mp4", loop: true, still: false)
        }
        PlanMediaCheck.run(pictureOnly, projectRoot: root, pipelineFile: spec.file, log: log)
        let problem = try #require(log.all.first)
        #expect(problem.code == "media" && problem.message.contains("media/silent.mp4 has no sound that decodes"), "\(problem)")
    }

    @Test("a FIFO is not opened (it would block until something writes to it)", .timeLimit(.minutes(1)))
    func fifoIsSkipped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-media-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("camera.pipe").path
        try #require(mkfifo(fifo, 0o600) == 0)
        var (plan, spec) = try plannedPipeline("demo")
        for index in plan.inputs.indices where plan.inputs[index].name == "asset:assets/logo.png" {
            plan.inputs[index].kind = .file(path: fifo, loop: false, still: true)
        }
        let log = DiagnosticLog()
        PlanMediaCheck.run(plan, projectRoot: repositoryRoot, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
    }
}
