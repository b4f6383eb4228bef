/// Pipelines built into onair, used when a project has no file of that name: `onair plan demo`
/// works in an empty folder. Synthetic sources and local recordings only: no network, no keys,
/// no files to ship (quality is written inline because an empty folder has no presets).
public enum BuiltinPipelines {
    /// Name → YAML.
    public static let all: [String: String] = ["demo": demo]

    /// A test pattern with a tone, automatic lighting, a clock, recorded as 16:9 and as a 9:16 crop.
    public static let demo = """
        title: onair demo
        sources:
          camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
        overlays:
          room: {kind: real-scene, camera: camera, auto_lighting: true}
        active: room
        layers:
          - kind: text
            text: "{title} · {clock}"
            size: 32
            color: "#FFFFFF"
            box: {color: "#000000", opacity: 0.5, padding: 10}
            position: bottom-left
        quality:
          width: 1280
          height: 720
          fps: 30
          video: {codec: h264, bitrate: 3000k, rate_control: cbr, keyframe_interval: 2s, profile: main, level: "3.1", preset: superfast, tune: zerolatency}
          audio: {codec: aac, bitrate: 128k, sample_rate: 48000, channels: 2}
        destinations:
          landscape: {kind: record, path: recordings/demo-16x9.mkv}
          vertical:
            kind: record
            path: recordings/demo-9x16.mkv
            canvas: {aspect: "9:16", focus: 0.5}
        """
}
