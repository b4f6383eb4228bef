import AVBridge
import OnairConfig
import OnairControl
import OnairEncoding
import OnairPlanner

/// What a link test sends: SMPTE HD colour bars (one still picture, decoded once) and silence,
/// encoded at a rendition's size, frame rate, keyframe interval, profile and level, with x264
/// padding every second up to a bitrate that can be raised while it runs (a still picture costs
/// little to encode, so the machine is rarely what limits the test).
final class TestPattern {
    /// What a muxer needs: video, then sound.
    let streams: [StreamParameters]
    private let video: Encoder
    private let audio: Encoder?
    private let picture: Frame
    private let silence: Frame?
    private let fps: Int
    private var frames = 0
    private var samples = 0
    private let packet: Packet

    /// Encoders for `video` and `audio`, the video starting at `bitrate`.
    init(video settings: VideoEncoding, audio sound: AudioEncoding?, bitrate: Int) throws {
        fps = settings.fps
        // The rendition's picture, keyframes and profile; the cheapest x264 setting, a constant
        // bitrate padded with filler, and none of the quality's own x264 options.
        var pattern = settings
        pattern.bitrate = bitrate
        pattern.maxBitrate = bitrate
        pattern.bufferSize = bitrate / 2
        pattern.rateControl = .cbr
        pattern.preset = "ultrafast"
        pattern.tune = "zerolatency"
        pattern.scenecut = false
        pattern.x264Params = nil
        video = try Encoder(video: VideoEncoderOptions(pattern, mode: .adjustablePadded))
        let bars = try MediaInput(url: "smptehdbars=size=\(settings.width)x\(settings.height):rate=\(settings.fps)", format: "lavfi",
                                  options: [], wantAudio: false, interruption: Interruption())
        guard let first = try bars.nextFrame() else { throw LibavError(function: "smptehdbars", code: .endOfFile) }
        picture = first.frame
        if let sound {
            let encoder = try Encoder(audio: AudioEncoderOptions(encoder: sound.encoder, sampleRate: sound.sampleRate, channels: sound.channels,
                                                                 bitrate: sound.bitrate))
            audio = encoder
            silence = try Frame(silence: encoder.frameSize > 0 ? encoder.frameSize : 1024, sampleRate: sound.sampleRate,
                                channels: sound.channels, sampleFormat: "fltp")
        } else {
            audio = nil
            silence = nil
        }
        streams = [video.parameters] + (audio.map { [$0.parameters] } ?? [])
        packet = try Packet()
    }

    /// Seconds of video encoded so far.
    var videoSeconds: Double { Double(frames) / Double(fps) }

    /// Changes the video bitrate from the next frame on.
    func setVideoBitrate(_ bitrate: Int) throws {
        try video.setBitrate(bitrate)
    }

    /// The packets of the next video frame and of the sound up to its end, with their stream
    /// index (0 video, 1 sound).
    func nextPackets() throws -> [(Packet, Int)] {
        var out: [(Packet, Int)] = []
        let frame = try picture.reference()
        frame.presentationTimestamp = Int64(frames)
        frames += 1
        _ = try video.send(frame)
        try drain(video, stream: 0, into: &out)
        if let audio, let silence, let rate = silence.sampleRate > 0 ? silence.sampleRate : nil {
            while Double(samples) / Double(rate) < videoSeconds {
                let sound = try silence.reference()
                sound.presentationTimestamp = Int64(samples)
                samples += silence.sampleCount
                _ = try audio.send(sound)
                try drain(audio, stream: 1, into: &out)
            }
        }
        return out
    }

    /// Flushes the encoders, dropping what they still held (the test is over; closing them
    /// unflushed makes libav warn).
    func finish() {
        var dropped: [(Packet, Int)] = []
        for (stream, encoder) in [video, audio].enumerated() {
            guard let encoder else { continue }
            _ = try? encoder.send(nil)
            try? drain(encoder, stream: stream, into: &dropped)
        }
    }

    private func drain(_ encoder: Encoder, stream: Int, into out: inout [(Packet, Int)]) throws {
        while case .done = try encoder.receive(into: packet) {
            out.append((try packet.reference(), stream))
            packet.clear()
        }
    }
}
