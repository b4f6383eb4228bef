import Foundation
import OnairTestSupport
import Testing

/// `onair validate FILE…`, as pre-commit hooks and editors call it: a file is checked within
/// the project above it (its presets, its assets), or on its own outside any project, and
/// reported under the path it was given by.
@Suite struct ValidateFileTests {
    @Test("a pipeline file given from the project folder is checked alone, with the project's presets")
    func fileFromTheProjectFolder() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("validate", "Pipelines/broken.yaml", in: project.root)
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.hasPrefix("Pipelines/broken.yaml:5:9: error: unknown overlay combination 'rooom' [unknown-reference]"), "\(output)")
        #expect(output.stdout.contains("1 error, 0 warnings in 1 pipeline"), "only the file given is checked: \(output)")

        // The shipped demo uses Presets/quality.yaml's 720p30 and ../assets: both are found.
        let demo = try await onair("validate", "Pipelines/demo.yaml", in: project.root)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("✓ 1 pipeline valid"), "\(demo)")
    }

    @Test("from inside Pipelines/, the project is found above, and files are named from there")
    func fileFromInsidePipelines() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("validate", "broken.yaml", "demo.yaml", in: project.root.appendingPathComponent("Pipelines"))
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.hasPrefix("../Pipelines/broken.yaml:5:9: error:"), "\(output)")
        #expect(output.stdout.contains("in 2 pipelines"), "\(output)")
    }

    @Test("an absolute path works from anywhere")
    func absolutePathFromAnywhere() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        try project.write("Pipelines/broken.yaml", brokenPipeline)
        let output = try await onair("validate", project.path + "/Pipelines/broken.yaml", project.path + "/Pipelines/demo.yaml",
                               in: URL(fileURLWithPath: "/"))
        #expect(output.status == 1, "\(output)")
        #expect(output.stdout.hasPrefix("\(project.path)/Pipelines/broken.yaml:5:9: error:"), "\(output)")
        #expect(output.stdout.contains("1 error, 0 warnings in 2 pipelines"), "demo.yaml found its presets and assets: \(output)")
    }

    @Test("a file elsewhere in a project is checked with the project's presets, its paths relative to it")
    func fileOutsidePipelinesInAProject() async throws {
        let project = try ScratchProject(shipped: true)
        defer { project.remove() }
        let draft = try String(contentsOf: project.root.appendingPathComponent("Pipelines/demo.yaml"), encoding: .utf8)
        try project.write("drafts/next.yaml", draft)
        let output = try await onair("validate", "drafts/next.yaml", in: project.root)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.contains("✓ 1 pipeline valid"), "\(output)")
    }

    @Test("a lone file outside any project is checked with the built-in platforms and no presets")
    func loneFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-lone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(warningOnlyPipeline.utf8).write(to: folder.appendingPathComponent("keyed.yaml"))
        try Data(warningOnlyPipeline.replacingOccurrences(of: "quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}",
                                                          with: "quality: 720p30").utf8)
            .write(to: folder.appendingPathComponent("preset.yaml"))
        let output = try await onair("validate", "keyed.yaml", "preset.yaml", in: folder)
        #expect(output.status == 1, "\(output)")
        // youtube is a built-in platform: only its key is missing.
        #expect(output.stdout.contains("keyed.yaml:8:53: warning:") && output.stdout.contains("[missing-key]"), "\(output)")
        // No Presets/ here, so 720p30 is unknown.
        #expect(output.stdout.contains("preset.yaml:6:10: error: unknown quality preset '720p30' [unknown-reference]"), "\(output)")
        #expect(output.stdout.contains("1 error, 1 warning in 2 pipelines"), "\(output)")
    }

    @Test("a file that does not exist is a usage error")
    func missingFile() async throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let output = try await onair("validate", "Pipelines/nothing.yaml", in: project.root)
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("no such file: Pipelines/nothing.yaml"), "\(output)")
    }
}
