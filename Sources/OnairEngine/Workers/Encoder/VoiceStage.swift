import AVBridge
import Foundation
import OnairControl
import OnairPlanner

/// The avatar's voice in one encoder's sound path: every sound frame passes through one
/// rubberband stretcher for the whole run, and the combination on air sets its pitch (1 when
/// it has no `voice:`).
///
/// Why here and not in the combinations' graphs: a graph is replaced at every overlay switch,
/// and a stretcher started afresh there begins with its latency of padding (a gap) and drops
/// what the old one held (a jump, heard as a click). One stretcher that outlives the switches
/// only changes its pitch between two frames: the timeline stays continuous (as many samples
/// out as in, less the latency held back until the end), and rubberband's `pitchq=consistency`
/// mode is made for pitch changes while it runs, with no discontinuity, also when crossing 1.
/// Smooth transients and independent phase keep a steady voice steady: the default "crisp"
/// transients made a pure tone wobble.
///
/// "No change" is ``unpitched``, a hair above 1, never 1 itself: leaving exactly 1 dipped the
/// sound to 35–60 % of its level for 10–20 ms (the stretcher starts resampling), where leaving
/// 1.0001 dips it to 79–80 % for about 10 ms, as any other change does.
final class VoiceStage {
    /// The pitch of a combination without a voice: 0.17 cents sharp, far below what an ear
    /// tells apart (about 5 cents).
    static let unpitched = 1.0001

    private let graph: FilterGraphRunner
    private let sinkTimeBase: TimeBase
    private var ratio = 1.0
    private var spare: Frame?


    /// A stage for sound in `format` (the encoder's, from the graph's sink), handing out frames
    /// of `frameSize` samples stamped in `timeBase`.
    init(sampleRate: Int, channels: Int, sampleFormat: String, timeBase: TimeBase, frameSize: Int) throws {
        graph = try FilterGraphRunner(
            description: "[voice_in]\(PlannedVoice.rubberband(pitch: Self.unpitched))[voice_out]",
            sources: [.init(label: "voice_in", media: .audio(sampleRate: sampleRate, channels: channels, sampleFormat: sampleFormat), timeBase: timeBase)],
            sinks: [.init(label: "voice_out", kind: .audio, audioFrameSize: frameSize)])
        sinkTimeBase = graph.timeBase(ofSink: 0)
    }

    /// The unit of the frames it hands out.
    var timeBase: TimeBase { sinkTimeBase }

    /// Pitches `frame` by `ratio` (changed, if it differs, before this frame) and returns what
    /// the stretcher gives out now.
    func process(_ frame: Frame, ratio: Double) throws -> [Frame] {
        // Every frame of one combination carries the same factor, computed once from its plan:
        // only a switch changes it (to six digits: finer than a cent).
        if ratio != self.ratio {
            try graph.send("pitch", String(format: "%.6f", ratio == 1 ? Self.unpitched : ratio), to: "rubberband")
            self.ratio = ratio
        }
        try graph.push(frame, source: 0)
        return try drain()
    }

    /// Ends the sound: what the stretcher still holds comes out.
    func finish() throws -> [Frame] {
        try graph.endOfStream(source: 0)
        return try drain()
    }

    private func drain() throws -> [Frame] {
        var frames: [Frame] = []
        while true {
            let frame = try spare ?? Frame()
            spare = nil
            guard case .done = try graph.pull(sink: 0, into: frame) else {
                spare = frame
                return frames
            }
            frames.append(frame)
        }
    }
}
