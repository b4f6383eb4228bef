import Foundation

/// A one-pipeline project whose only problem is a typo in `active:` (line 5, column 9).
let brokenPipeline = """
    sources:
      camera: {kind: test, size: 1280x720}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: rooom
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      archive: {kind: record, path: ../recordings/show.mkv}

    """

/// A valid pipeline whose only finding is a warning: its stream key variable is unset.
let warningOnlyPipeline = """
    sources:
      camera: {kind: test, size: 1280x720}
    overlays:
      room: {kind: real-scene, camera: camera}
    active: room
    quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
    destinations:
      youtube: {kind: platform, platform: youtube, key: {env: ONAIR_TEST_UNSET_KEY}}

    """

/// Parses JSON output into a dictionary.
func jsonObject(_ text: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let object = value as? [String: Any] else { throw CocoaError(.coderInvalidValue) }
    return object
}
