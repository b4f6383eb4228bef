import OnairControl

/// The schemas of every mapping in pipeline and preset files.
public enum ConfigSchema {
    static let positions = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]
    static let encoderPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]
    static let encoderTunes = ["zerolatency", "film", "animation", "grain", "stillimage", "fastdecode"]
    static let testPatterns = ["testsrc2", "testsrc", "smptebars", "smptehdbars", "rgbtestsrc", "mandelbrot", "color"]

    /// A picture used as a background, avatar or slate: an image, a video or a source.
    public static let visual = ObjectSchema(
        "picture", doc: "A still image, a video file or a source, used as a background, avatar or slate.",
        fields: [
            FieldSchema("image", .path, "An image file (PNG, JPEG), relative to this file."),
            FieldSchema("video", .path, "A video file, relative to this file."),
            FieldSchema("loop", .boolean, "Loop the video (default true)."),
            FieldSchema("source", .reference("source"), "A source of this pipeline."),
            FieldSchema("color", .color, "A solid colour, e.g. \"#101020\"."),
        ])

    /// Where a picture sits on the canvas.
    public static let placement = ObjectSchema(
        "placement", doc: "Where a picture sits: a position keyword or x/y, a margin and a scale.",
        fields: [
            FieldSchema("position", .choice(positions), "Anchor on the canvas (default center)."),
            FieldSchema("x", .integer(-8192...8192), "Left edge in pixels (instead of position)."),
            FieldSchema("y", .integer(-8192...8192), "Top edge in pixels (instead of position)."),
            FieldSchema("scale", .number(0.01...4), "Width as a fraction of the canvas width, or of the canvas height for people and avatars."),
            FieldSchema("margin", .integer(0...4096), "Distance from the canvas edge in pixels."),
        ])

    /// Colour keying of a green or blue screen.
    public static let chromaKey = ObjectSchema(
        "colour key", doc: "Green-screen keying.",
        fields: [
            FieldSchema("color", .color, "The screen colour (default \"#00FF00\")."),
            FieldSchema("similarity", .number(0.01...1), "How close to the key colour a pixel must be to vanish (default 0.25)."),
            FieldSchema("blend", .number(0...1), "Soft edge width (default 0.08)."),
            FieldSchema("spill", .number(0...1), "Green spill removal strength; 0 turns it off (default 0.2)."),
        ])

    /// What failures of a live source cut to which backups.
    public static let failover = ObjectSchema(
        "failover", doc: "Backups that go on air in this source's place when it fails, and when it returns.",
        fields: [
            FieldSchema("backups", .list(.reference("source")), required: true, "Sources to cut to, first preferred; each is kept connected and decoded (warm)."),
            FieldSchema("when", .list(.choice(FailoverCondition.allCases.map(\.rawValue))),
                        "What counts as a failure: loss (no data), black (a black picture), silence (sound below -50 dBFS) (default all three)."),
            FieldSchema("after", .duration(minimumMs: 100), "How long a failure lasts before onair cuts to a backup (default 1s)."),
            FieldSchema("clear", .duration(minimumMs: 500), "How long the source must be clean before it returns; also the least time between two switches (default 3s)."),
        ])

    static let failoverField = FieldSchema("failover", .object(failover), "Cut to backup sources when this one is lost, black or silent.")

    static let previewField = FieldSchema("preview", .path, "An image onair preview shows in this live source's place (default: the input-loss slate).")

    /// A source of pictures and sound.
    public static let source = ObjectSchema(
        "source", doc: "Where pictures and sound come from.",
        fields: [
            FieldSchema("size", .size, "Expected picture size, e.g. 1280x720 (required for test sources; used to check the graph)."),
            FieldSchema("fps", .integer(1...240), "Expected frame rate."),
        ],
        variants: [
            .init("test", "A synthetic test picture and tone.", [
                FieldSchema("pattern", .choice(testPatterns), "Test picture (default testsrc2)."),
                FieldSchema("tone", .booleanOrNumber(0...20000), "Sine tone in Hz, true for 1000 Hz, false for no audio (default 1000)."),
                FieldSchema("color", .color, "Colour for the 'color' pattern."),
            ]),
            .init("file", "A media or image file.", [
                FieldSchema("path", .path, required: true, "The file, relative to this file."),
                FieldSchema("loop", .boolean, "Start again at the end (default false)."),
            ]),
            .init("network", "A stream pulled from a URL (rtmp, rtmps, srt, udp, http/https HLS).", [
                FieldSchema("url", .text, required: true, "The stream URL."),
                FieldSchema("timeout", .duration(minimumMs: 100), "How long to wait for data before the input counts as lost (default 5s)."),
                failoverField,
                previewField,
            ]),
            .init("listen", "onair listens and a camera or phone pushes to it (rtmp or srt).", [
                FieldSchema("url", .text, required: true, "Where to listen, e.g. srt://0.0.0.0:9000 or rtmp://0.0.0.0:1935/live/cam."),
                FieldSchema("timeout", .duration(minimumMs: 100), "How long to wait for data before the input counts as lost (default 5s)."),
                failoverField,
                previewField,
            ]),
            .init("device", "A capture device.", [
                FieldSchema("device", .text, required: true, "Device path or name, e.g. /dev/video0."),
                FieldSchema("format", .choice(["v4l2", "alsa", "pulse", "x11grab", "decklink"]), "Capture API (default v4l2)."),
                failoverField,
                previewField,
            ]),
        ])

    /// How the sound is pitched while a scene-avatar combination is on air.
    public static let voice = ObjectSchema(
        "voice", doc: "The avatar's voice: the sound pitched up or down while the combination is on air.",
        fields: [
            FieldSchema("pitch", .number(VoiceSpec.range), "Semitones up (positive) or down (negative), -12 to 12."),
            FieldSchema("preset", .choice(VoiceSpec.presets.map { $0.key }), "A named voice: deep (-5 semitones) or high (+5)."),
        ])

    /// An overlay combination: what the audience sees.
    public static let overlay = ObjectSchema(
        "overlay combination", doc: "One way to compose the scene; `active:` picks the one on air at start.",
        fields: [],
        variants: [
            .init("virtual-background", "A keyed person over a background picture.", [
                FieldSchema("person", .reference("source"), required: true, "The camera filming the person in front of the screen."),
                FieldSchema("background", .object(visual), required: true, "What replaces the screen."),
                FieldSchema("key", .object(chromaKey), "Colour key settings."),
                FieldSchema("placement", .object(placement), "Where the person sits (default: bottom, full height)."),
            ]),
            .init("real-scene", "The camera as it is, with optional automatic lighting.", [
                FieldSchema("camera", .reference("source"), required: true, "The camera."),
                FieldSchema("auto_lighting", .booleanOrNumber(0...1), "Automatic brightness/contrast correction: true, false or a strength from 0 to 1."),
            ]),
            .init("scene-avatar", "A scene with an avatar image or video over it.", [
                FieldSchema("scene", .reference("source"), required: true, "The scene source."),
                FieldSchema("avatar", .object(visual), required: true, "The avatar picture (PNG with transparency works best)."),
                FieldSchema("placement", .object(placement), "Where the avatar sits (default: bottom-right, a third of the height)."),
                FieldSchema("voice", .nameOrObject("voice preset", voice),
                            "Pitch the sound while this combination is on air: a preset (deep, high) or {pitch: SEMITONES}."),
            ]),
        ],
        extensible: true)

    /// A semi-transparent box behind text.
    public static let textBox = ObjectSchema(
        "text box", doc: "A box drawn behind text.",
        fields: [
            FieldSchema("color", .color, "Box colour (default \"#000000\")."),
            FieldSchema("opacity", .number(0...1), "Box opacity (default 0.5)."),
            FieldSchema("padding", .integer(0...512), "Space around the text in pixels (default 10)."),
        ])

    static let layerPlacement: [FieldSchema] = [
        FieldSchema("name", .text, "A name the schedule's show:/hide: use (letters, digits, - and _, starting with a letter)."),
        FieldSchema("hidden", .boolean, "Start hidden, until the schedule shows it (needs a name; default false)."),
        FieldSchema("position", .choice(positions), "Anchor on the canvas."),
        FieldSchema("x", .integer(-8192...8192), "Left edge in pixels (instead of position)."),
        FieldSchema("y", .integer(-8192...8192), "Top edge in pixels (instead of position)."),
        FieldSchema("margin", .integer(0...4096), "Distance from the canvas edge in pixels (default 24)."),
    ]

    /// Something drawn over the scene.
    public static let layer = ObjectSchema(
        "layer", doc: "Drawn on top of the active overlay combination, in order.",
        fields: layerPlacement,
        variants: [
            .init("image", "A logo or any image.", [
                FieldSchema("image", .path, required: true, "The image, relative to this file."),
                FieldSchema("scale", .number(0.01...1), "Width as a fraction of the canvas width (default: the image's own size)."),
                FieldSchema("opacity", .number(0...1), "Opacity (default 1)."),
            ]),
            .init("text", "Text, with placeholders {title}, {pipeline}, {clock}, {date}, {countdown}, {countdown:NAME}, {next} and the schedule's set: variables.", [
                FieldSchema("text", .text, required: true, "What to write."),
                FieldSchema("font", .text, "Font family (fontconfig name, default \"DejaVu Sans\") or a .ttf/.otf path."),
                FieldSchema("size", .integer(4...512), "Font size in pixels (default 32)."),
                FieldSchema("color", .color, "Text colour (default \"#FFFFFF\")."),
                FieldSchema("box", .object(textBox), "A box behind the text."),
            ]),
            .init("pip", "Picture-in-picture of another source.", [
                FieldSchema("source", .reference("source"), required: true, "The source shown in the inset."),
                FieldSchema("scale", .number(0.05...1), "Width as a fraction of the canvas width (default 0.25)."),
            ]),
        ])

    /// Video encoder settings.
    public static let video = ObjectSchema(
        "video settings", doc: "Video encoder settings.",
        fields: [
            FieldSchema("codec", .choice(["h264", "hevc", "av1"]), "Video codec (h264; hevc and av1 reserved)."),
            FieldSchema("bitrate", .bitrate, "Target bitrate, e.g. 4500k."),
            FieldSchema("max_bitrate", .bitrate, "Bitrate cap (VBV max rate)."),
            FieldSchema("buffer", .bitrate, "VBV buffer size (default 2 × max_bitrate)."),
            FieldSchema("rate_control", .choice(RateControl.allCases.map(\.rawValue)), "Constant or variable bitrate (default cbr)."),
            FieldSchema("keyframe_interval", .duration(minimumMs: 100), "Time between keyframes, e.g. 2s."),
            FieldSchema("profile", .choice(["baseline", "main", "high"]), "H.264 profile (default high)."),
            FieldSchema("level", .text, "H.264 level such as \"4.1\" (quote it)."),
            FieldSchema("preset", .choice(encoderPresets), "Encoder speed preset (default superfast)."),
            FieldSchema("tune", .choice(encoderTunes), "Encoder tune."),
            FieldSchema("x264_params", .text,
                        "More libx264 options as ffmpeg's -x264-params takes them, e.g. \"subme=0:cabac=1\" (key=value pairs joined by ':'); checked against libx264 itself. Bitrate, keyframes, profile, level, preset and tune have their own fields."),
        ])

    /// Audio encoder settings.
    public static let audio = ObjectSchema(
        "audio settings", doc: "Audio encoder settings.",
        fields: [
            FieldSchema("codec", .choice(["aac", "opus", "mp3"]), "Audio codec (default aac)."),
            FieldSchema("bitrate", .bitrate, "Bitrate (default 128k)."),
            FieldSchema("sample_rate", .choice(["44100", "48000"]), "Sample rate in Hz (default 48000)."),
            FieldSchema("channels", .integer(1...2), "1 (mono) or 2 (stereo, default)."),
        ])

    /// Adaptive bitrate.
    public static let adaptive = ObjectSchema(
        "adaptive bitrate", doc: "Lower the encoder's bitrate while a destination's link can't carry it, and raise it back when it can.",
        fields: [
            FieldSchema("min_bitrate", .bitrate, required: true, "The lowest video bitrate to go to, e.g. 1500k (the quality's bitrate is the highest)."),
        ])

    /// `quality: {auto: [...]}`: a ladder of quality presets to choose from by measuring the link.
    public static let qualityLadder = ObjectSchema(
        "quality ladder", doc: "Pick, when the pipeline goes live, the first of these quality presets the destination's measured link carries with 30 % to spare.",
        fields: [
            FieldSchema("auto", .list(.reference("quality preset")), required: true,
                        "Quality presets from the best down, e.g. [1080p30, 720p30]; all of one aspect ratio."),
        ])

    /// A quality preset.
    public static let quality = ObjectSchema(
        "quality", doc: "Picture size, frame rate and encoder settings.",
        fields: [
            FieldSchema("width", .integer(16...7680), required: true, "Width in pixels (even)."),
            FieldSchema("height", .integer(16...4320), required: true, "Height in pixels (even)."),
            FieldSchema("fps", .integer(1...120), required: true, "Frames per second."),
            FieldSchema("video", .object(video), required: true, "Video encoder settings."),
            FieldSchema("audio", .object(audio), "Audio encoder settings (default AAC 128k 48 kHz stereo)."),
            FieldSchema("adaptive", .object(adaptive), "Follow the link: step the bitrate down while a destination falls behind (see docs/configuration.md)."),
        ],
        extensible: true)

    /// What a `quality:` line holds: a preset's name, an inline quality, or a ladder.
    static let qualityChoice = ValueType.nameOrObject("quality preset", quality, alternatives: [qualityLadder])

    /// A crop of the scene for one destination.
    public static let canvas = ObjectSchema(
        "canvas", doc: "Which part of the scene a destination receives.",
        fields: [
            FieldSchema("aspect", .aspect, required: true, "Aspect ratio of the crop, e.g. \"9:16\"."),
            FieldSchema("focus", .number(0...1), "Horizontal centre of the crop: 0 left, 0.5 centre (default), 1 right."),
        ])

    /// A stream key reference.
    public static let secret = ObjectSchema(
        "stream key", doc: "Where a stream key is read from; never the key itself.",
        fields: [
            FieldSchema("env", .text, "Environment variable holding the key."),
            FieldSchema("file", .path, "File holding the key (first line)."),
        ])

    /// An API token reference.
    public static let apiToken = ObjectSchema(
        "API token", doc: "Where the HTTP API's bearer token is read from; never the token itself.",
        fields: [
            FieldSchema("env", .text, "Environment variable holding the token."),
            FieldSchema("file", .path, "File holding the token (first line); it must not be readable by others (mode 0600)."),
        ])

    /// The HTTP API, metrics and dashboard of a run.
    public static let http = ObjectSchema(
        "http", doc: "Where a run serves its HTTP API, Prometheus metrics, health probes and dashboard.",
        fields: [
            FieldSchema("listen", .listenAddress, "Address and port, e.g. \"127.0.0.1:8750\" (default: 127.0.0.1 on a free port); anything but loopback needs a token."),
            FieldSchema("token", .object(apiToken), "Where the bearer token clients must send is read from (Authorization: Bearer …)."),
        ])

    /// Reconnection policy.
    public static let retry = ObjectSchema(
        "retry policy", doc: "How a destination reconnects after a failure.",
        fields: [
            FieldSchema("initial_delay", .duration(minimumMs: 10), "First wait (default 1s)."),
            FieldSchema("max_delay", .duration(minimumMs: 10), "Longest wait (default 30s)."),
            FieldSchema("jitter", .number(0...1), "Random spread of each wait, as a fraction (default 0.2)."),
            FieldSchema("max_attempts", .countOrUnlimited(1...1_000_000), "Attempts before giving up (default unlimited)."),
            FieldSchema("connect_timeout", .duration(minimumMs: 100), "Give up a connection attempt after this (default 10s)."),
            FieldSchema("write_timeout", .duration(minimumMs: 100), "A write blocked this long counts as a stall (default 5s)."),
        ])

    /// A destination.
    public static let destination = ObjectSchema(
        "destination", doc: "Where the broadcast goes.",
        fields: [
            FieldSchema("quality", qualityChoice, "Quality for this destination (default: the pipeline's): a preset, inline settings, or {auto: [1080p30, 720p30]}."),
            FieldSchema("canvas", .object(canvas), "Crop of the scene, e.g. 9:16 for vertical platforms."),
            FieldSchema("required", .boolean, "Whether the broadcast fails when this destination fails for good (default true)."),
            FieldSchema("retry", .object(retry), "Reconnection policy (default: the pipeline's)."),
            FieldSchema("start", .choice(DestinationSpec.Start.allCases.map(\.rawValue)),
                        "When it starts: with the run (default), or when the schedule's start: action names it (scheduled)."),
            FieldSchema("audio", .reference("source or mix"), "The sound it gets: a mix (a music-free one, say) or a source (default: the pipeline's audio:)."),
        ],
        variants: [
            .init("platform", "A streaming platform from the catalogue.", [
                FieldSchema("platform", .reference("platform"), required: true, "youtube, twitch, facebook, tiktok, mux, x, or one from Presets/."),
                FieldSchema("key", .object(secret), required: true, "Where the stream key comes from."),
                FieldSchema("server", .text, "Ingest server URL for platforms that issue one per account (TikTok) or to pick a region."),
                FieldSchema("protocol", .choice(["rtmps", "rtmp", "srt"]), "Ingest protocol (default: the most secure the platform offers)."),
                FieldSchema("latency_mode", .text, "The latency mode the broadcast is set to on the platform's side (YouTube: normal, low, ultra-low; Twitch: normal, low), for the latency estimate (default: the platform's)."),
                FieldSchema("adaptive", .object(adaptive), "Follow this destination's link: step the bitrate down while it falls behind."),
                FieldSchema("vod_track", .reference("source or mix"),
                            "A second sound sent in the same session for the platform's VODs and clips, while live viewers hear audio: (Twitch's VOD track; a music-free mix, say)."),
            ]),
            .init("url", "A custom RTMP, RTMPS or SRT URL; {key} stands for the key.", [
                FieldSchema("url", .text, required: true, "The URL, e.g. rtmps://live.example.com/app/{key}."),
                FieldSchema("key", .object(secret), "Where the stream key comes from."),
                FieldSchema("adaptive", .object(adaptive), "Follow this destination's link: step the bitrate down while it falls behind."),
            ]),
            .init("record", "A recording file (.ts, .mkv, or .mp4 written fragmented) that stays playable if onair is killed.", [
                FieldSchema("path", .path, required: true, "Output file, relative to this file; {date} and {time} are replaced."),
            ]),
            .init("hls", "A local HLS folder (playlist + segments).", [
                FieldSchema("directory", .path, required: true, "Output folder, relative to this file."),
                FieldSchema("segment", .duration(minimumMs: 500), "Segment length (default 2s)."),
                FieldSchema("playlist_size", .integer(1...1000), "Segments kept in the playlist (default 6)."),
            ]),
        ],
        extensible: true)

    /// `play:` of a scheduled action.
    public static let clip = ObjectSchema(
        "clip", doc: "A video clip played in a source's place, picture and sound.",
        fields: [
            FieldSchema("clip", .path, required: true, "The video file, relative to this file."),
            FieldSchema("in", .reference("source"), required: true, "The source whose place it takes until it ends (or the next action on that source)."),
            FieldSchema("loop", .boolean, "Play it again from the start until the next action on that source (default false)."),
        ])

    /// `mute:`/`unmute:` of a scheduled action, when it names the picture or the sound alone.
    public static let mute = ObjectSchema(
        "mute", doc: "A source's picture (the slate is shown instead) or sound (silence instead).",
        fields: [
            FieldSchema("source", .reference("source"), required: true, "The source."),
            FieldSchema("video", .boolean, "The picture: true mutes (or unmutes) it; without video: and audio:, both."),
            FieldSchema("audio", .boolean, "The sound: true mutes (or unmutes) it; without video: and audio:, both."),
        ])

    /// One item of `schedule:`.
    public static let action = ObjectSchema(
        "scheduled action", doc: "One action at one time: at: (a clock time, +DURATION from the start, or an ISO time) or after: (the previous action).",
        fields: [
            FieldSchema("at", .actionTime, "When: \"18:00\" (the pipeline's timezone), +5m (from the run's start) or \"2026-12-01T18:00:00+01:00\"."),
            FieldSchema("after", .duration(), "When: this long after the previous action, e.g. 30s."),
            FieldSchema("name", .text, "A name for {countdown:NAME} in text layers."),
            FieldSchema("overlay", .reference("overlay combination"), "Switch to this overlay combination."),
            FieldSchema("show", .reference("layer"), "Show the layer with this name."),
            FieldSchema("hide", .reference("layer"), "Hide the layer with this name."),
            FieldSchema("for", .duration(minimumMs: 1), "With show: or hide:, undo it this long after, e.g. 10s."),
            FieldSchema("play", .object(clip), "Play a clip in a source's place: {clip: PATH, in: SOURCE}."),
            FieldSchema("mute", .nameOrObject("source", mute), "Mute a source: its name (picture and sound) or {source: NAME, audio: true}."),
            FieldSchema("unmute", .nameOrObject("source", mute), "Unmute a source: its name (picture and sound) or {source: NAME, video: true}."),
            FieldSchema("start", .reference("destination"), "Start a destination (one with start: scheduled, or one stopped before)."),
            FieldSchema("stop", .reference("destination"), "Stop a destination."),
            FieldSchema("set", .map(.text), "Set text variables shown by {NAME} in text layers, e.g. {title: \"Live now\"}."),
            FieldSchema("end", .boolean, "end: true ends the run."),
            FieldSchema("include", .reference("schedule"), "Take in the actions of a schedule from Presets/ (schedules:), in place of this item."),
        ])

    /// What to do when an input stops delivering.
    public static let inputLoss = ObjectSchema(
        "input loss policy", doc: "What viewers see when a source stops delivering.",
        fields: [
            FieldSchema("after", .duration(minimumMs: 100), "Silence after which an input counts as lost (default 2s)."),
            FieldSchema("hold_last_frame", .duration(), "Repeat the last frame this long before the slate (default 3s)."),
            FieldSchema("slate", .object(visual), "What to show then: an image, a video or a colour (default \"#000000\")."),
        ])

    /// A bed that dips while someone speaks.
    public static let ducking = ObjectSchema(
        "ducking", doc: "Lower this source while another one of the mix is heard (music under a voice).",
        fields: [
            FieldSchema("under", .reference("source"), required: true, "The source of the same mix whose sound lowers this one."),
            FieldSchema("by", .decibels(1...40), "How far it dips (default 12dB)."),
            FieldSchema("attack", .duration(), "How fast it dips once the other is heard (default 50ms)."),
            FieldSchema("release", .duration(), "How fast it comes back once the other is quiet (default 400ms)."),
        ])

    /// One source's place in a mix.
    public static let mixSource = ObjectSchema(
        "mix source", doc: "A source's (or another mix's) sound in a mix.",
        fields: [
            FieldSchema("gain", .decibels(-60...20), "Its level in the mix (default 0dB)."),
            FieldSchema("pan", .number(-1...1), "Left (-1) to right (1) (default 0, centre)."),
            FieldSchema("mute", .boolean, "Left out of the mix until unmuted (default false)."),
            FieldSchema("delay", .duration(), "Held back this long, to line sound up with pictures (default 0ms)."),
            FieldSchema("duck", .object(ducking), "Dip under another source of the mix."),
        ])

    /// How loud a mix is kept.
    public static let loudness = ObjectSchema(
        "loudness", doc: "How loud the mix is kept: its peaks limited, or its loudness brought to a target; watched against both.",
        fields: [
            FieldSchema("mode", .choice(LoudnessSpec.Mode.allCases.map(\.rawValue)),
                        "limit (default): peaks held under true_peak, no delay; normalize: loudness brought to target as well (loudnorm, about 3 s of look-ahead); measure: nothing done, only metered and watched."),
            FieldSchema("target", .number(-40...(-5)), "Integrated loudness aimed at by normalize and watched by audio.loudness, LUFS (default -14, where YouTube plays back)."),
            FieldSchema("true_peak", .number(-9...0), "The highest peak let through, dBTP; audio.clipping above it (default -1)."),
            FieldSchema("tolerance", .number(0.5...10), "audio.loudness when the loudness over window is further than this from target, LU (default 2)."),
            FieldSchema("window", .duration(minimumMs: 3000), "The span audio.loudness measures the loudness over (default 30s)."),
        ])

    /// Dead air: a mix silent too long.
    public static let silenceAlert = ObjectSchema(
        "silence alert", doc: "Raise audio.silent when the mix stays below a floor this long (dead air), and audio.silence-ended when it is heard again.",
        fields: [
            FieldSchema("below", .decibels(-90...(-10)), "The floor: the mix's loudest sample below it counts as silence (default -50dB)."),
            FieldSchema("after", .duration(minimumMs: 500), "How long the silence lasts before it is reported (default 10s)."),
        ])

    /// A named mix of sources.
    public static let mix = ObjectSchema(
        "mix", doc: "Sound mixed from several sources (or mixes), each with its gain, pan, delay and ducking.",
        fields: [
            FieldSchema("sources", .map(.object(mixSource)), required: true,
                        "The sources (or mixes) heard, by name, each with its settings ({} for none): {presenter: {}, music: {gain: -12dB}}."),
            FieldSchema("loudness", .object(loudness), "Keep the mix's peaks under a ceiling, or its loudness at a target."),
            FieldSchema("silence", .object(silenceAlert), "Watch the mix for dead air: {below: -50dB, after: 10s}."),
        ])

    /// A named pipeline file.
    public static let pipeline = ObjectSchema(
        "pipeline", doc: "A named pipeline: sources, overlays, layers, quality and destinations.",
        fields: [
            FieldSchema("title", .text, "Shown by {title} in text layers (default: the pipeline name)."),
            FieldSchema("sources", .map(.object(source)), required: true, "Named sources."),
            FieldSchema("overlays", .map(.object(overlay)), required: true, "Named overlay combinations."),
            FieldSchema("active", .reference("overlay combination"), required: true, "The overlay combination on air at start."),
            FieldSchema("mixes", .map(.object(mix)), "Named mixes of sources' sound (audio: names one)."),
            FieldSchema("audio", .reference("source or mix"), "The sound broadcast: a mix or a source (default: the active combination's camera, or else the first combination's camera with sound)."),
            FieldSchema("layers", .list(.object(layer)), "Logos, text and picture-in-picture drawn on top, in order."),
            FieldSchema("quality", qualityChoice, required: true,
                        "The scene's quality: a preset name, inline settings, or {auto: [1080p30, 720p30]} (the scene has the first; each network destination gets the first its link carries)."),
            FieldSchema("destinations", .map(.object(destination)), required: true, "Named destinations."),
            FieldSchema("retry", .object(retry), "Default reconnection policy of every destination."),
            FieldSchema("input_loss", .object(inputLoss), "What to show when an input is lost."),
            FieldSchema("latency", .choice(LatencyMode.allCases.map(\.rawValue)),
                        "normal (default) or low: every stage trades a little efficiency for delay (no frame threads in live inputs' decoders, no frame read ahead for the scene's frame rate, x264 zerolatency, packets sent at once)."),
            FieldSchema("http", .object(http), "Where the run serves its HTTP API, metrics and dashboard (onair run --http overrides listen)."),
            FieldSchema("timezone", .text, "The time zone of the schedule's clock times, an IANA name such as Europe/Paris (default: the machine's)."),
            FieldSchema("schedule", .list(.object(action)), "Actions at given times: switches, layers shown and hidden, clips, mutes, destinations started and stopped, text set."),
            notifyField,
        ])

    /// A platform definition (built-in or from Presets/).
    public static let platform = ObjectSchema(
        "platform", doc: "A streaming platform's ingest URLs and published limits.",
        fields: [
            FieldSchema("title", .text, "Display name."),
            FieldSchema("ingest", .object(ingest), "Ingest URL templates by protocol; {key} is the stream key, {server} the destination's server."),
            FieldSchema("orientation", .object(orientation), "The platform's native canvas."),
            FieldSchema("video", .object(platformVideo), "Video limits."),
            FieldSchema("keyframes", .object(platformKeyframes), "Keyframe interval limits."),
            FieldSchema("audio", .object(platformAudio), "Audio limits."),
            FieldSchema("latency", .object(platformLatency), "Ingest to viewer, by the latency mode a broadcast is set to."),
            FieldSchema("loudness", .object(platformLoudness), "How loud and how peaky the sound it takes may be."),
        ],
        extensible: true)

    static let platformLatency = ObjectSchema(
        "platform latency", doc: "How long the platform takes from its ingest to its viewers, by latency mode.",
        fields: [
            FieldSchema("modes", .map(.duration()), required: true, "Ingest to viewer by mode, e.g. normal: 20s, low: 8s."),
            FieldSchema("default", .text, "The mode a broadcast has unless its destination says otherwise (latency_mode:)."),
            sourceField,
        ])

    static let sourceField = FieldSchema("source", .text, "Where these figures are published.")

    static let ingest = ObjectSchema(
        "ingest URLs", doc: "Ingest URL templates by protocol.",
        fields: [
            FieldSchema("rtmps", .text, "RTMPS URL template."),
            FieldSchema("rtmp", .text, "RTMP URL template."),
            FieldSchema("srt", .text, "SRT URL template."),
        ])

    static let orientation = ObjectSchema(
        "orientation", doc: "Native canvas orientation.",
        fields: [FieldSchema("value", .choice(["landscape", "portrait"]), required: true, "landscape or portrait."), sourceField])

    static let platformVideo = ObjectSchema(
        "platform video limits", doc: "Published video limits.",
        fields: [
            FieldSchema("codecs", .list(.choice(["h264", "hevc", "av1"])), "Accepted codecs."),
            FieldSchema("profiles", .list(.choice(["baseline", "main", "high"])), "Accepted H.264 profiles."),
            FieldSchema("rate_control", .choice(RateControl.allCases.map(\.rawValue)), "Required rate control."),
            FieldSchema("max_bitrate", .bitrate, "Hard bitrate cap."),
            FieldSchema("bitrate_by_format", .map(.bitrate), "Caps by format row, e.g. 1080p60: 9000k."),
            FieldSchema("max_fps", .integer(1...240), "Highest frame rate."),
            FieldSchema("max_level", .text, "Highest H.264 level, e.g. \"4.2\"."),
            sourceField,
        ])

    static let platformKeyframes = ObjectSchema(
        "platform keyframe limits", doc: "Keyframe interval limits.",
        fields: [
            FieldSchema("max", .duration(), "Longest accepted interval."),
            FieldSchema("recommended", .duration(), "Recommended interval."),
            FieldSchema("scenecut", .boolean, "false when the platform asks for no scene-cut keyframes."),
            sourceField,
        ])

    static let platformLoudness = ObjectSchema(
        "platform loudness limits", doc: "What a mix's loudness: may ask for on this platform.",
        fields: [
            FieldSchema("max_true_peak", .number(-20...0), "The highest true_peak a mix may be held under, dBTP."),
            FieldSchema("min_target", .number(-40...(-5)), "The quietest target a mix may be brought to or measured against, LUFS."),
            FieldSchema("max_target", .number(-40...(-5)), "The loudest target, LUFS."),
            sourceField,
        ])

    static let platformAudio = ObjectSchema(
        "platform audio limits", doc: "Audio limits.",
        fields: [
            FieldSchema("codecs", .list(.choice(["aac", "opus", "mp3"])), "Accepted codecs."),
            FieldSchema("sample_rates", .list(.choice(["44100", "48000"])), "Accepted sample rates."),
            FieldSchema("max_bitrate", .bitrate, "Audio bitrate cap."),
            FieldSchema("required", .boolean, "Whether an audio track is mandatory."),
            FieldSchema("vod_track", .boolean, "Whether it takes a second audio track for its VODs in the same RTMP session (Twitch's VOD track)."),
            sourceField,
        ])

    /// A preset file: up to six sections of named presets.
    public static let presetFile = ObjectSchema(
        "preset file", doc: "Reusable presets, referred to by name from pipelines.",
        fields: [
            FieldSchema("quality", .map(.object(quality)), "Quality presets."),
            FieldSchema("overlays", .map(.object(overlay)), "Overlay combination presets."),
            FieldSchema("destinations", .map(.object(destination)), "Destination presets."),
            FieldSchema("platforms", .map(.object(platform)), "Platforms added to or overriding the built-in catalogue."),
            FieldSchema("schedules", .map(.list(.object(action))), "Schedules a pipeline's schedule takes in with - include: NAME."),
            FieldSchema("notify", .map(.object(notifyTarget)), "Notify target presets."),
        ])
}
