import AVBridge
import OnairEncoding
import Foundation
import OnairTestSupport
import Testing

/// The whole chain through real libav: a synthetic input is decoded, filtered, encoded and
/// muxed into a file that ffprobe then reads.
@Suite("decode → filter → encode → mux")
struct TranscodeChainTests {
    @Test("a lavfi test source becomes a playable H.264/AAC Matroska file")
    func lavfiToMatroska() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("onair-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let interruption = Interruption()
        let video = try MediaInput(url: "testsrc2=size=320x240:rate=25", format: "lavfi", options: [], interruption: interruption)
        let audio = try MediaInput(url: "sine=frequency=440:sample_rate=48000", format: "lavfi", options: [], interruption: interruption)
        let videoFormat = try #require(video.video)
        let audioFormat = try #require(audio.audio)
        #expect(videoFormat.width == 320 && videoFormat.height == 240)

        let videoEncoder = try Encoder(video: VideoEncoderOptions(
            encoder: "libx264", width: 160, height: 120, pixelFormat: "yuv420p", fps: 25, bitrate: 300_000, maxBitrate: 300_000, bufferSize: 600_000,
            gopFrames: 25, bitrateMode: .fixed,
            options: [EncoderOption("preset", "ultrafast"), EncoderOption("tune", "zerolatency"), EncoderOption("profile", "main"),
                      EncoderOption("x264-params", "scenecut=0:nal-hrd=cbr:force-cfr=1")]))
        let audioEncoder = try Encoder(audio: AudioEncoderOptions(sampleRate: 48000, channels: 2, bitrate: 96_000))
        let graph = try FilterGraphRunner(
            description: "[0:v]scale=160:120,format=yuv420p[v0];[1:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[a0]",
            sources: [
                .init(label: "0:v", media: .video(width: videoFormat.width, height: videoFormat.height, frameRate: videoFormat.frameRate,
                                                  pixelFormat: videoFormat.pixelFormat), timeBase: TimeBase(1, 25)),
                .init(label: "1:a", media: .audio(sampleRate: audioFormat.sampleRate, channels: audioFormat.channels,
                                                  sampleFormat: audioFormat.sampleFormat), timeBase: TimeBase(1, 48000)),
            ],
            sinks: [.init(label: "v0", kind: .video), .init(label: "a0", kind: .audio, audioFrameSize: audioEncoder.frameSize)])
        let path = directory.appendingPathComponent("out.mkv").path
        let output = try MediaOutput(url: path, format: "matroska", options: [],
                                     streams: [videoEncoder.parameters, audioEncoder.parameters], interruption: interruption)

        func drain(_ encoder: Encoder, stream: Int) throws {
            let packet = try Packet()
            while case .done = try encoder.receive(into: packet) { try output.write(packet, stream: stream) }
        }
        func pullAll() throws {
            for (sink, encoder) in [(0, videoEncoder), (1, audioEncoder)] {
                let frame = try Frame()
                while case .done = try graph.pull(sink: sink, into: frame) {
                    frame.presentationTimestamp = frame.presentationTimestamp.map { graph.timeBase(ofSink: sink).convert($0, to: encoder.timeBase) }
                    _ = try encoder.send(frame)
                    frame.clear()
                    try drain(encoder, stream: sink)
                }
            }
        }
        // Two seconds of each input.
        var videoFrames = 0, audioSamples = 0
        while videoFrames < 50, let decoded = try video.nextFrame() {
            try graph.push(decoded.frame, source: 0)
            videoFrames += 1
            while audioSamples < videoFrames * 48000 / 25, let sound = try audio.nextFrame() {
                audioSamples += sound.frame.sampleCount
                try graph.push(sound.frame, source: 1)
            }
            try pullAll()
        }
        try graph.endOfStream(source: 0)
        try graph.endOfStream(source: 1)
        try pullAll()
        for (index, encoder) in [videoEncoder, audioEncoder].enumerated() {
            _ = try encoder.send(nil)
            try drain(encoder, stream: index)
        }
        try output.finish()

        let probe = try await Subprocess.run(
            FFprobe.executable, ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", path],
            timeout: .seconds(60))
        let lines = probe.stdout.split(separator: "\n")
        #expect(lines.first == "h264,160,120,50")
        #expect(lines.dropFirst().first?.hasPrefix("aac") == true)
    }
}
