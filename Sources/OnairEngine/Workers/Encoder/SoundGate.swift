import AVBridge
import OnairPlanner
import Synchronization

/// A rendition's sound muted on air (`onair mute NAME --destination D --audio`): its samples
/// ramped to silence (and back) on their way into the encoder, one gain a sample, so the
/// pictures and the stream go on and nothing clicks.
///
/// Set from the control path, applied on the encoder's thread: a change asked at a media time
/// ramps from the first sound frame the encoder takes after it (or from that time, when later).
final class SoundGate: Sendable {
    private struct State {
        var muted = false
        var ramp = GainRamp.steady(1)
        var asked: Int64?
    }

    private let state = Mutex(State())

    init() {}

    /// Whether it is (or is becoming) silent.
    var isMuted: Bool { state.withLock { $0.muted } }

    /// Mutes or unmutes, asked at `asked` (µs of media time).
    func set(muted: Bool, asked: Int64) {
        state.withLock { state in
            guard state.muted != muted || state.asked != nil else { return }
            state.muted = muted
            state.asked = state.asked ?? asked
        }
    }

    /// Applies the gain to `frame`, which starts at `micros`.
    func apply(to frame: Frame, at micros: Int64) throws {
        let ramp = state.withLock { state -> GainRamp in
            if let asked = state.asked {
                let start = max(asked, micros)
                state.ramp = GainRamp(from: state.ramp.gain(at: start), to: state.muted ? 0 : 1, start: start)
                state.asked = nil
            }
            return state.ramp
        }
        guard frame.sampleRate > 0 else { return }
        let rate = Int64(frame.sampleRate)
        let end = micros + Int64(frame.sampleCount) * 1_000_000 / rate
        if ramp.to == 1, ramp.end <= micros || ramp.from == 1 { return }
        if ramp.to == 0, ramp.end <= micros {
            try frame.silence(from: 0, count: frame.sampleCount)
            return
        }
        guard ramp.start < end else {
            if ramp.from != 1 { try frame.scaleSamples { _ in Float(ramp.from) } }
            return
        }
        try frame.scaleSamples { sample in Float(ramp.gain(at: micros + Int64(sample) * 1_000_000 / rate)) }
    }
}
