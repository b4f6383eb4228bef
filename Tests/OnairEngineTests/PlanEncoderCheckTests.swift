import AVBridge
import Foundation
import OnairConfig
import OnairEncoding
import OnairPlanner
import OnairValidation
import OnairTestSupport
import Testing

@Suite("x264_params checked against libx264")
struct PlanEncoderCheckTests {
    /// A project whose pipeline's quality has `x264_params: PARAMS` on line 7 (value at column 46).
    static func project(_ params: String) throws -> ScratchProject {
        try showProject(quality: "{width: 320, height: 180, fps: 30, video: {x264_params: \"\(params)\", bitrate: 300k, profile: main}}",
                        destinations: ["archive: {kind: record, path: ../out/show.mkv}"])
    }

    @Test("options libx264 knows pass, reach the plan and the printed ffmpeg command")
    func known() throws {
        let project = try Self.project("subme=0:cabac=1:deblock=-1,-1")
        defer { project.remove() }
        let (plan, spec) = try plannedPipeline("show", in: project.root)
        #expect(plan.renditions.first?.video.x264Params?.text == "subme=0:cabac=1:deblock=-1,-1")
        let log = DiagnosticLog()
        PlanEncoderCheck.run(plan, pipelineFile: spec.file, log: log)
        #expect(log.all.isEmpty, "\(log.all)")
        let arguments = FFmpegCommand(plan: plan).arguments.map(\.text)
        let at = try #require(arguments.firstIndex(of: "-x264-params:v"), "\(arguments)")
        #expect(arguments[at + 1] == "nal-hrd=cbr:force-cfr=1:subme=0:cabac=1:deblock=-1,-1")
        #expect(plan.renditions.first?.encoderOptions.video.option("x264-params") == arguments[at + 1], "the engine opens what the command says")
    }

    @Test("an option libx264 does not know, or a value it rejects, is an error at x264_params (FFmpeg alone only warns)")
    func rejected() throws {
        let project = try Self.project("subme=0:submee=3:me=xyz")
        defer { project.remove() }
        let (plan, spec) = try plannedPipeline("show", in: project.root)
        let log = DiagnosticLog()
        PlanEncoderCheck.run(plan, pipelineFile: spec.file, log: log)
        let problems = log.sorted
        #expect(problems.map(\.code) == ["encoder"], "\(problems)")
        let problem = try #require(problems.first)
        #expect(problem.message == "libx264 rejects x264_params: Error parsing option 'submee = 3'; Error parsing option 'me = xyz'", "\(problem.message)")
        #expect(problem.location.file == spec.file && problem.location.line == 7, "\(problem.location)")

        // And the engine does not open such an encoder either.
        let video = try #require(plan.renditions.first?.encoderOptions.video)
        #expect(throws: LibavError.self) { _ = try Encoder(video: video) }
    }
}
