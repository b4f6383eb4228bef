extension PlatformCatalogue {
    /// Placeholder until the full catalogue lands.
    static let builtinYAML = #"""
platforms:
  youtube:
    title: YouTube Live
    ingest: {rtmps: "rtmps://a.rtmps.youtube.com:443/live2/{key}", rtmp: "rtmp://a.rtmp.youtube.com/live2/{key}"}
    video: {codecs: [h264, hevc, av1], max_bitrate: 51000k, max_fps: 60, bitrate_by_format: {720p30: 8000k, 720p60: 8000k, 1080p30: 8000k, 1080p60: 12000k}, source: "YouTube"}
    keyframes: {max: 4s, recommended: 2s, source: "YouTube"}
    audio: {codecs: [aac], sample_rates: [44100, 48000], max_bitrate: 160k, source: "YouTube"}
  twitch:
    title: Twitch
    ingest: {rtmp: "rtmp://live.twitch.tv/app/{key}", rtmps: "rtmps://live.twitch.tv:443/app/{key}"}
    video: {codecs: [h264], profiles: [main, baseline], rate_control: cbr, max_bitrate: 6000k, max_fps: 60, source: "Twitch"}
    keyframes: {max: 2s, recommended: 2s, scenecut: false, source: "Twitch"}
    audio: {codecs: [aac], sample_rates: [44100, 48000], max_bitrate: 320k, source: "Twitch"}
  facebook:
    title: Facebook Live
    ingest: {rtmps: "rtmps://live-api-s.facebook.com:443/rtmp/{key}"}
    video: {codecs: [h264], max_bitrate: 9000k, source: "Meta"}
    keyframes: {max: 4s, recommended: 2s, source: "Meta"}
    audio: {codecs: [aac], max_bitrate: 128k, required: true, source: "Meta"}
  tiktok:
    title: TikTok LIVE
    ingest: {rtmps: "{server}{key}"}
    orientation: {value: portrait, source: "TikTok"}
    video: {codecs: [h264], source: "TikTok"}
    audio: {codecs: [aac], source: "TikTok"}
"""#
}
