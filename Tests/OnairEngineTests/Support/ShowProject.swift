import OnairTestSupport

/// A scratch project with one pipeline, `show`: a 320x180 test camera in a real scene, then
/// `quality:` with `quality` on line 7 (indented two spaces) and `destinations:` from line 9,
/// each of `destinations` a line of its own.
func showProject(quality: String, destinations: [String]) throws -> ScratchProject {
    let project = try ScratchProject()
    try project.write("Pipelines/show.yaml", """
        sources:
          camera: {kind: test, size: 320x180, tone: false}
        overlays:
          room: {kind: real-scene, camera: camera}
        active: room
        quality:
          \(quality)
        destinations:
        \(destinations.map { "  " + $0 }.joined(separator: "\n"))

        """)
    return project
}
