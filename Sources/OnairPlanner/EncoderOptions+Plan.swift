import OnairConfig
import OnairControl
import OnairEncoding

extension EncoderOptions {
    /// How a rendition with `video` (and `audio`) is encoded: an adaptive rendition's bitrate
    /// may change while it encodes.
    init(video: VideoEncoding, audio: AudioEncoding?) {
        self.init(video: VideoEncoderOptions(video, mode: video.adaptive == nil ? .fixed : .adjustable),
                  audio: audio.map { AudioEncoderOptions(encoder: $0.encoder, sampleRate: $0.sampleRate, channels: $0.channels, bitrate: $0.bitrate) })
    }
}

extension VideoEncoderOptions {
    /// How `video` is encoded by libx264 in `mode`: the encoding's fields, then onair's x264
    /// options, then the quality's own `x264_params` (which may not set what onair's do).
    public init(_ video: VideoEncoding, mode: BitrateMode) {
        var options = [EncoderOption("preset", video.preset)]
        if let tune = video.tune { options.append(EncoderOption("tune", tune)) }
        options.append(EncoderOption("profile", video.profile))
        if let level = video.level { options.append(EncoderOption("level", level)) }
        let x264 = Self.x264Params(of: video, mode: mode)
        if !x264.isEmpty { options.append(EncoderOption("x264-params", x264.joined(separator: ":"))) }
        self.init(encoder: video.encoder, width: video.width, height: video.height, pixelFormat: video.pixelFormat, fps: video.fps,
                  bitrate: video.bitrate, maxBitrate: video.maxBitrate, bufferSize: video.bufferSize, gopFrames: video.gopFrames,
                  bitrateMode: mode, options: options)
    }

    /// libx264 options for what the encoding's fields can't say: keyframes only at the interval
    /// when a destination asks (`scenecut=0`); a constant bitrate kept as `mode` allows (see
    /// ``BitrateMode``), at a constant frame rate; then the quality's `x264_params`.
    private static func x264Params(of video: VideoEncoding, mode: BitrateMode) -> [String] {
        var x264: [String] = []
        if !video.scenecut { x264.append("scenecut=0") }
        if video.rateControl == .cbr {
            switch mode {
            case .fixed: x264.append("nal-hrd=cbr")
            case .adjustable: break
            }
            x264.append("force-cfr=1")
        }
        if let more = video.x264Params?.text { x264.append(more) }
        return x264
    }
}
