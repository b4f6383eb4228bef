import Foundation
import OnairTestSupport
import Testing

/// `onair ARGUMENTS…` run to completion (the built executable), failing the test when it
/// can't be started.
func onair(_ arguments: [String], environment: [String: String]? = nil,
           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Subprocess.Output {
    let binary = try #require(OnairBinary.path, "\(OnairBinary.notFound)", sourceLocation: sourceLocation)
    return try await Subprocess.run(binary, arguments, environment: environment, timeout: .seconds(60))
}

/// A project with the shipped presets and assets and pipelines of the test's own.
func exportProject(_ pipelines: [String: String]) throws -> ScratchProject {
    let project = try ScratchProject(shipped: true)
    for (name, yaml) in pipelines { try project.write("Pipelines/\(name).yaml", yaml) }
    return project
}

/// Pipelines that reach the parts of the exports the shipped examples don't: a key in a file,
/// cameras pushing RTMP and SRT, an HLS output, a capture device.
let unusualPipelines: [String: String] = [
    "keyfile": """
        title: Key file
        sources:
          camera: {kind: listen, url: "rtmp://0.0.0.0:1935/live/cam"}
          phone: {kind: listen, url: "srt://0.0.0.0:9000"}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        layers:
          - {kind: pip, source: phone, position: top-left, scale: 0.25}
        quality: 720p30
        destinations:
          twitch: {kind: platform, platform: twitch, key: {file: keys/twitch.key}}
          archive: {kind: record, path: ../archive/show/keyfile.ts}
        """,
    "device": """
        title: Device
        sources:
          webcam: {kind: device, device: /dev/video0, format: v4l2}
        overlays:
          room: {kind: real-scene, camera: webcam}
        active: room
        quality: 720p30
        destinations:
          youtube: {kind: platform, platform: youtube, key: {env: YOUTUBE_STREAM_KEY}}
        """,
]
