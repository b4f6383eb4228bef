import AVBridge
import Foundation
import OnairPlanner
import OnairTestSupport
import Testing

@testable import OnairEngine

/// A rendition's encoder (x264 for real) given what the compositor gives it when a show's
/// combination goes on air at the run's start.
@Suite("A rendition's first pictures")
struct RenditionStartTests {
    @Test("a switch that landed before the first graph gave out a picture leaves a hole at 0: it is filled, N × F pictures are encoded",
          .timeLimit(.minutes(1)))
    func holeAtTheStart() async throws {
        let (plan, _) = try plannedPipeline("demo")
        let rendition = try #require(plan.renditions.first)
        let (signals, reports) = WorkerReports.makeStream()
        let encoder = try await OwnThread.run { try RenditionEncoder(rendition: rendition, reports: reports) }
        encoder.start()
        // What the compositor sends: the switch's "repeat the last picture" (there is none yet),
        // then the new graph's pictures from the third frame on, as a switch at 66.7 ms gives them.
        let pictures = Int64(10), first = Int64(2)
        let video = rendition.video
        try await OwnThread.run {
            _ = encoder.frames.push(.repeatLastPicture(untilMicros: 0))
            for tick in first..<pictures {
                let picture = try Frame(color: 0x808080, width: video.width, height: video.height, pixelFormat: "yuv420p")
                picture.presentationTimestamp = tick
                _ = encoder.frames.push(.frame(SinkFrame(frame: picture, kind: .video, timeBase: TimeBase(1, Int32(video.fps)), generation: 1)))
            }
            encoder.requestStop()
        }
        for await signal in signals {
            if case .worker(_, .ended(let outcome)) = signal {
                #expect(outcome == .finished)
                break
            }
        }
        let progress = encoder.progress
        #expect(progress.frames == Int(pictures) && progress.repeated == Int(first), "\(progress.frames) pictures, \(progress.repeated) repeated")
        #expect(progress.micros == (pictures - 1) * 1_000_000 / Int64(video.fps))
    }
}
