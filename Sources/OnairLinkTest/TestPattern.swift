import AVBridge
import OnairConfig
import OnairControl
import OnairEncoding
import OnairPlanner

/// What a link test sends: SMPTE HD colour bars (one still picture) and silence at a
/// rendition's size, frame rate, keyframe interval, profile and level, the video padded with
/// H.264 filler to a bitrate that can be raised while it runs.
///
/// One keyframe interval of pictures and a few packets of silence are encoded before the test
/// and sent again and again with new timestamps, so each frame costs this machine a copy, not
/// an encode: the test measures the link however busy the machine is (an encoder that fell
/// behind on a loaded machine made the test a measure of the machine).
final class TestPattern {
    /// What a muxer needs: video, then sound.
    let streams: [StreamParameters]
    /// One keyframe interval, the keyframe first; timestamps in frames.
    private let pictures: [Packet]
    /// The sound, when the rendition has one.
    private let silence: Silence?
    private let fps: Int
    private var frames = 0
    private var samples = 0
    /// Video bit/s the padding makes.
    private var bitrate: Int

    /// The pattern for `video` and `audio`, the video padded to `bitrate`.
    init(video settings: VideoEncoding, audio sound: AudioEncoding?, bitrate: Int) throws {
        fps = settings.fps
        self.bitrate = bitrate
        let video = try Encoder(video: VideoEncoderOptions(Self.stillPicture(settings), mode: .adjustable))
        let bars = try MediaInput(url: "smptehdbars=size=\(settings.width)x\(settings.height):rate=\(settings.fps)", format: "lavfi",
                                  options: [], wantAudio: false, interruption: Interruption())
        guard let picture = try bars.nextFrame()?.frame else { throw LibavError(function: "smptehdbars", code: .endOfFile) }
        pictures = try Self.encode(max(1, settings.gopFrames), copiesOf: picture, with: video)
        silence = try sound.map(Silence.init)
        streams = [video.parameters] + (silence.map { [$0.parameters] } ?? [])
    }

    /// The rendition's picture, keyframes and profile; the cheapest x264 setting at a low
    /// bitrate capped by its buffer, and none of the quality's own x264 options.
    private static func stillPicture(_ settings: VideoEncoding) -> VideoEncoding {
        var pattern = settings
        (pattern.bitrate, pattern.maxBitrate, pattern.bufferSize) = (200_000, 200_000, 200_000)
        pattern.rateControl = .cbr
        pattern.preset = "ultrafast"
        pattern.tune = "zerolatency"
        pattern.scenecut = false
        pattern.x264Params = nil
        return pattern
    }

    /// The packets of `count` copies of `frame`, timestamped 0, 1, 2… in frames, flushed.
    fileprivate static func encode(_ count: Int, copiesOf frame: Frame, with encoder: Encoder) throws -> [Packet] {
        var packets: [Packet] = []
        func drain() throws {
            let packet = try Packet()
            while case .done = try encoder.receive(into: packet) {
                packets.append(try packet.reference())
                packet.clear()
            }
        }
        let step = Int64(encoder.kind == .audio ? max(1, frame.sampleCount) : 1)
        for index in 0..<count {
            let copy = try frame.reference()
            copy.presentationTimestamp = Int64(index) * step
            _ = try encoder.send(copy)
            try drain()
        }
        _ = try encoder.send(nil)
        try drain()
        return packets
    }

    /// Seconds of video sent so far.
    var videoSeconds: Double { Double(frames) / Double(fps) }

    /// Pads the video to `bitrate` from the next frame on.
    func setVideoBitrate(_ bitrate: Int) {
        self.bitrate = bitrate
    }

    /// The packets of the next video frame and of the sound up to its end, with their stream
    /// index (0 video, 1 sound).
    func nextPackets() throws -> [(Packet, Int)] {
        let index = frames % pictures.count
        // A new packet each frame (the muxer takes it): a copy of at most a frame's bytes, which
        // is all a frame costs here.
        let picture = try pictures[index].paddedWithH264Filler(to: pictureSize(index))
        (picture.presentationTimestamp, picture.decodingTimestamp) = (Int64(frames), Int64(frames))
        frames += 1
        var out = [(picture, 0)]
        while let silence, Double(samples) / Double(silence.sampleRate) < videoSeconds {
            let sound = try silence.packets[(samples / silence.frameSize) % silence.packets.count].reference()
            (sound.presentationTimestamp, sound.decodingTimestamp) = (Int64(samples), Int64(samples))
            samples += silence.frameSize
            out.append((sound, 1))
        }
        return out
    }

    /// Bytes the picture at `index` of the keyframe interval is padded to: the interval carries
    /// the bitrate, the keyframe as it is and the others sharing the rest evenly.
    private func pictureSize(_ index: Int) -> Int {
        let interval = bitrate / 8 * pictures.count / fps
        guard pictures.count > 1 else { return interval }
        return index == 0 ? pictures[0].size : (interval - pictures[0].size) / (pictures.count - 1)
    }
}

/// A few packets of encoded silence, sent again and again with new timestamps.
private struct Silence {
    /// Each `frameSize` samples at `sampleRate`.
    let packets: [Packet]
    let frameSize: Int
    let sampleRate: Int
    /// What the muxer needs of the sound's stream.
    let parameters: StreamParameters

    /// Silence encoded as `sound` says.
    init(_ sound: AudioEncoding) throws {
        let encoder = try Encoder(audio: AudioEncoderOptions(encoder: sound.encoder, sampleRate: sound.sampleRate, channels: sound.channels,
                                                             bitrate: sound.bitrate))
        frameSize = encoder.frameSize > 0 ? encoder.frameSize : 1024
        sampleRate = sound.sampleRate
        parameters = encoder.parameters
        let frame = try Frame(silence: frameSize, sampleRate: sound.sampleRate, channels: sound.channels, sampleFormat: "fltp")
        // The first packets carry the encoder's priming, the last its flush: the middle ones
        // are silence that repeats.
        let encoded = try TestPattern.encode(16, copiesOf: frame, with: encoder)
        packets = encoded.count > 8 ? Array(encoded.dropFirst(4).dropLast(4)) : encoded
        guard !packets.isEmpty else { throw LibavError(function: "avcodec_receive_packet", code: .endOfFile) }
    }
}
