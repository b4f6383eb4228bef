import AVBridge
import Foundation
import OnairTestSupport
import OnairConfig
import OnairPlanner
import OnairValidation
import Testing

@testable import OnairEngine

@Suite("Slate: made ready once, in the format of the graph source it covers")
struct SlateTests {
    /// The studio pipeline's plan and its live main camera's graph source.
    private func studioCamera() throws -> (PipelinePlan, PlannedSource) {
        let (plan, _) = try plannedPipeline("studio")
        let camera = try #require(PlannedSource.all(in: plan).first { $0.kind == .video && plan.inputs[$0.input].name == "camera" })
        return (plan, camera)
    }

    @Test("the studio's 1280x720 RGB slate image is ready at the 1080p canvas in the camera source's format")
    func imageAtCanvasSize() throws {
        let (plan, camera) = try studioCamera()
        let path = repositoryRoot.appendingPathComponent(try #require(plan.inputLoss.slatePath))
        let image = try #require(try MediaInput(url: path.path, format: nil, options: [], wantAudio: false, interruption: Interruption()).video)
        try #require(image.width != plan.canvas.width && image.pixelFormat != "yuv420p", "the image must differ from the canvas")

        let picture = try #require(try Slate(imageAt: path, color: 0).picture(for: camera.media))
        #expect(picture.width == plan.canvas.width && picture.height == plan.canvas.height)
        #expect(picture.pixelFormatName == "yuv420p")
        #expect(camera.media == .video(width: picture.width, height: picture.height, frameRate: FrameRate(plan.fps), pixelFormat: "yuv420p"))
    }

    @Test("a colour slate is made at the canvas size too")
    func colourAtCanvasSize() throws {
        let (plan, camera) = try studioCamera()
        let picture = try #require(try Slate(imageAt: nil, color: 0x202020).picture(for: camera.media))
        #expect(picture.width == plan.canvas.width && picture.height == plan.canvas.height)
        #expect(picture.pixelFormatName == "yuv420p")
    }

    @Test("sound gets no slate")
    func noSlateForSound() throws {
        #expect(try Slate(imageAt: nil, color: 0).picture(for: .audio(sampleRate: 48000, channels: 2)) == nil)
    }
}
