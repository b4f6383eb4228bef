import OnairControl

// The platforms onair knows without any configuration (`onair list`).

extension PlatformCatalogue {
    /// The built-in platform catalogue, in the `platforms:` format of a preset file
    /// (docs/configuration.md, "Platforms").
    ///
    /// Every limit group carries the `source:` it was taken from, so a user can check it; the
    /// figures were collected 2026-11. A platform that publishes nothing for a group has no such
    /// group here. Ingest templates use `{key}` for the destination's stream key and `{server}`
    /// for its `server:` (or `url:`): for platforms whose server is issued per account, and for
    /// the generic `rtmp`, `rtmps` and `srt` entries.
    /// A preset file can override any entry with `extends:`.
    public static let builtinYAML = """
        platforms:

          youtube:
            title: YouTube Live
            # YouTube Live RTMPS ingestion guide: RTMPS needs port 443 and SNI.
            # Backup ingest: rtmps://b.rtmps.youtube.com:443/live2?backup=1
            ingest:
              rtmps: "rtmps://a.rtmps.youtube.com:443/live2/{key}"
              rtmp: "rtmp://a.rtmp.youtube.com/live2/{key}"
            video:
              codecs: [h264, hevc, av1]
              max_bitrate: 51000k           # hard cap, about 51 Mbps
              bitrate_by_format:            # upper end of each published range
                2160p60: 40000k             # 10-40 Mbps
                1440p60: 30000k             # 6-30 Mbps
                1080p60: 12000k             # 4-10 Mbps; 12 Mbps recommended for H.264
                1080p30: 8000k              # 3-8 Mbps
                720p60: 8000k               # 3-8 Mbps
                720p30: 8000k               # 3-8 Mbps
              max_fps: 60
              source: "YouTube support answer 2853702"
            keyframes:
              max: 4s                       # Studio warns and rejects above 4 s
              recommended: 2s
              source: "YouTube support answer 2853702"
            audio:
              codecs: [aac]                 # AAC-LC
              sample_rates: [44100, 48000]
              max_bitrate: 160k
              source: "YouTube support answer 2853702"
            latency:                        # ingest to viewer, by the broadcast's "Stream latency" in Studio
              default: normal
              modes: {normal: 20s, low: 8s, ultra-low: 3s}
              source: "https://support.google.com/youtube/answer/7444635 names the modes but no figures; ultra-low 'as little as 2 s' (YouTube Creator Blog, 2017-09); normal 15-30 s and low 5-10 s as commonly measured"
            # A stream that goes without data can be archived and its URL changes: keep it fed.
            loudness:                       # what a mix's loudness: may ask for
              max_true_peak: -1
              min_target: -24
              max_target: -9
              source: "AES TD1004.1.15-10 (streaming: at most -1 dBTP, -16 to -20 LUFS); EBU R 128 (-23) and ATSC A/85 (-24) for simulcast programmes; YouTube plays back near -14 LUFS (commonly measured)"

          twitch:
            title: Twitch
            # `live` picks the nearest ingest; pin one with a preset, e.g.
            #   twitch: {extends: twitch, ingest: {rtmp: "rtmp://<region>.twitch.tv/app/{key}"}}
            # The RTMPS address is the one given in docs/configuration.md.
            ingest:
              rtmp: "rtmp://live.twitch.tv/app/{key}"
              rtmps: "rtmps://live.twitch.tv:443/app/{key}"
            video:
              codecs: [h264]
              profiles: [main, baseline]
              rate_control: cbr
              max_bitrate: 6000k
              max_fps: 60                   # 25/30 or 50/60
              source: "Twitch Creator Camp broadcast recommendations; Twitch help article 1253460"
            keyframes:
              max: 2s
              recommended: 2s
              scenecut: false               # x264 scenecut=0 recommended
              source: "Twitch Creator Camp broadcast recommendations; Twitch help article 1253460"
            audio:
              codecs: [aac]                 # AAC-LC, mono or stereo, 128k recommended
              sample_rates: [44100, 48000]
              max_bitrate: 320k
              vod_track: true               # a second AAC track for VODs, as OBS's "Twitch VOD Track" sends it
              source: "Twitch Creator Camp broadcast recommendations; Twitch help article 1253460"
            latency:                        # the channel's "Latency mode" (Creator Dashboard > Settings > Stream)
              default: low
              modes: {normal: 12s, low: 4s}
              source: "https://help.twitch.tv/s/article/low-latency-video (low latency is the default) gives no figures; normal 10-15 s and low 2-6 s as commonly measured"
            # A broadcast lasts at most 48 h; each reconnect may start a new VOD.
            loudness:                       # what a mix's loudness: may ask for
              max_true_peak: -1
              min_target: -24
              max_target: -9
              source: "AES TD1004.1.15-10 (streaming: at most -1 dBTP, -16 to -20 LUFS); EBU R 128 (-23) and ATSC A/85 (-24) for simulcast programmes; YouTube plays back near -14 LUFS (commonly measured)"

          facebook:
            title: Facebook Live (Meta)
            # Meta Live Video API reference: RTMPS only.
            ingest:
              rtmps: "rtmps://live-api-s.facebook.com:443/rtmp/{key}"
            orientation: {value: landscape, source: "Meta Live Video API reference (16:9)"}
            video:
              codecs: [h264]
              profiles: [main]              # level 4.1 up to 1080p30, 4.2 for 1080p60
              max_bitrate: 9000k            # the highest row below
              bitrate_by_format:
                360p30: 1000k
                360p60: 1500k
                480p30: 2000k
                480p60: 3000k
                720p30: 4000k
                720p60: 6000k
                1080p30: 6000k
                1080p60: 9000k
              max_fps: 60
              source: "Meta Live Video API reference; OBS Studio rtmp-services services.json (bitrate matrix)"
            keyframes:
              max: 4s                       # never above 4 s
              recommended: 2s
              source: "Meta Live Video API reference"
            audio:
              codecs: [aac]                 # AAC-LC
              max_bitrate: 128k
              required: true
              source: "Meta Live Video API reference"
            # A broadcast lasts at most 8 h; don't change settings mid-broadcast.
            loudness:                       # what a mix's loudness: may ask for
              max_true_peak: -1
              min_target: -24
              max_target: -9
              source: "AES TD1004.1.15-10 (streaming: at most -1 dBTP, -16 to -20 LUFS); EBU R 128 (-23) and ATSC A/85 (-24) for simulcast programmes; YouTube plays back near -14 LUFS (commonly measured)"

          tiktok:
            title: TikTok LIVE
            # TikTok issues the server URL and the key per account (LIVE Studio keys are temporary,
            # about 2 h), so the destination supplies `server:`. RTMPS only.
            ingest:
              rtmps: "{server}{key}"
            orientation: {value: portrait, source: "OBS Studio rtmp-services services.json"}   # 9:16, 1080x1920 or 720x1280
            video:
              codecs: [h264]                # no bitrate, frame rate or keyframe limits published
              source: "OBS Studio rtmp-services services.json"
            audio:
              codecs: [aac]
              source: "OBS Studio rtmp-services services.json"
            loudness:                       # what a mix's loudness: may ask for
              max_true_peak: -1
              min_target: -24
              max_target: -9
              source: "AES TD1004.1.15-10 (streaming: at most -1 dBTP, -16 to -20 LUFS); EBU R 128 (-23) and ATSC A/85 (-24) for simulcast programmes; YouTube plays back near -14 LUFS (commonly measured)"

          mux:
            title: Mux
            ingest:
              rtmps: "rtmps://global-live.mux.com:443/app/{key}"
              rtmp: "rtmp://global-live.mux.com:5222/app/{key}"
            video:
              codecs: [h264]
              max_bitrate: 5000k
              source: "OBS Studio rtmp-services services.json"
            keyframes:
              max: 2s
              source: "OBS Studio rtmp-services services.json"
            audio:
              codecs: [aac]
              max_bitrate: 160k
              source: "OBS Studio rtmp-services services.json"
            latency:
              default: standard
              modes: {standard: 25s}
              source: "https://www.mux.com/docs/guides/reduce-live-stream-latency (standard HLS glass to glass: typically about 25 to 30 s)"
            # Reconnecting after a drop: Mux docs, "handle live stream disconnects".

          x:
            title: X (Twitter)
            # X issues a regional server, rtmp://<region>.pscp.tv:80/x/, shown with the key:
            # the destination supplies it as `server:`.
            ingest:
              rtmp: "{server}{key}"
            video:
              codecs: [h264]
              max_bitrate: 12000k
              max_fps: 60
              source: "OBS Studio rtmp-services services.json"
            keyframes:
              max: 3s
              source: "OBS Studio rtmp-services services.json"
            audio:
              codecs: [aac]
              max_bitrate: 128k
              source: "OBS Studio rtmp-services services.json"

          # Generic servers: no limits. `{server}` is the destination's `server:` (or `url:`), the
          # key, if any, is appended to it (for SRT, end the server with `?streamid=` to send the
          # key as the stream id, or leave the key out).
            loudness:                       # what a mix's loudness: may ask for
              max_true_peak: -1
              min_target: -24
              max_target: -9
              source: "AES TD1004.1.15-10 (streaming: at most -1 dBTP, -16 to -20 LUFS); EBU R 128 (-23) and ATSC A/85 (-24) for simulcast programmes; YouTube plays back near -14 LUFS (commonly measured)"

          rtmp:
            title: RTMP server
            ingest: {rtmp: "{server}{key}"}

          rtmps:
            title: RTMPS server
            ingest: {rtmps: "{server}{key}"}

          srt:
            title: SRT server
            ingest: {srt: "{server}{key}"}
        """
}
