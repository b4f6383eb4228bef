import Foundation
import OnairTestSupport
import Testing

/// `onair run` end to end: the built executable runs a pipeline with a synthetic source in a
/// temporary project, publishes to real nginx-rtmp ingests on loopback and records to files;
/// ffprobe reads back what arrived.
///
/// One test at a time: each encodes in real time, and two of them at once on a 2-core machine
/// would measure the machine rather than onair.
@Suite("onair run, end to end", .serialized)
struct EndToEnd {}

/// Seconds between two instants of the wall clock.
func seconds(from start: Date, to end: Date) -> Double {
    end.timeIntervalSince(start)
}

/// Waits until `date` (wall clock) without holding a thread of the concurrency pool.
func pause(until date: Date) async throws {
    let left = date.timeIntervalSinceNow
    if left > 0 { try await Task.sleep(for: .seconds(left)) }
}

/// One frame at the test quality's rate.
let frameInterval = 1 / Double(RunPipeline.fps)

/// Decodes the recording at `relative` in `project`, failing the test when it can't be read.
func decodeRecording(_ project: ScratchProject, _ relative: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> DecodedVideo
{
    let path = project.file(relative).path
    try #require(FileManager.default.fileExists(atPath: path), "\(relative) was not written", sourceLocation: sourceLocation)
    let decoded = await FFprobe.decodeVideo(of: path)
    return try #require(decoded, "ffprobe could not decode \(relative)", sourceLocation: sourceLocation)
}

/// The recording at `relative` (of ``RunPipeline/redAndBlueScene``) as runs of one colour, in
/// order: `red`, `blue` or `other`, with how many frames each lasts.
func redAndBlueRuns(_ project: ScratchProject, _ relative: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> [(name: String, frames: Int)]
{
    let path = project.file(relative).path
    let colours = try #require(await FFprobe.frameColours(of: path), "ffprobe could not read \(relative)",
                               sourceLocation: sourceLocation)
    var runs: [(name: String, frames: Int)] = []
    for frame in colours {
        let name = frame.v > 180 && frame.u < 120 ? "red" : frame.u > 180 && frame.v < 140 ? "blue" : "other"
        if runs.last?.name == name { runs[runs.count - 1].frames += 1 } else { runs.append((name, 1)) }
    }
    return runs
}

/// Checks that `video` holds `seconds` of pictures at the test rate: its frame count within
/// `tolerance` (a fraction; 0 for exactly) of seconds × fps, and no hole longer than two frame
/// intervals.
func expectContinuous(_ video: DecodedVideo, seconds: Double, tolerance: Double, _ what: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = seconds * Double(RunPipeline.fps)
    #expect(abs(Double(video.frameCount) - expected) <= expected * tolerance,
            "\(what): \(video.frameCount) frames, expected \(Int(expected)) ± \(Int(expected * tolerance))", sourceLocation: sourceLocation)
    #expect(video.largestStep <= 2 * frameInterval + 0.002,
            "\(what): a gap of \(String(format: "%.3f", video.largestStep)) s between two frames", sourceLocation: sourceLocation)
}
