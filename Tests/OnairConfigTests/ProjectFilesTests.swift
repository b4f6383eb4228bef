import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// A project loaded from memory (how the fuzzer loads its inputs) is the project loaded from
/// disk: same files listed, same documents, same diagnostics.
@Suite("Project files in memory")
struct ProjectFilesTests {
    static let pipeline = """
        sources:
          cam: {kind: test}
        qualities: [hd]
        destinations:
          - {platform: youtube, key: "{env:YT_KEY}"}
        bitrat: 1
        """
    static let presets = "quality:\n  hd: {width: 1280, height: 720, fps: 30, video_bitrate: 3000k, audio_bitrate: 128k, extends: hd}\n"

    /// The same files on disk and in memory, loaded both ways.
    func loadBothWays(_ files: [String: String], parsed: Bool) throws -> (disk: Loaded, memory: Loaded) {
        let project = try ScratchProject(files: files)
        defer { project.remove() }
        let disk = project.load()
        let inMemory = files.reduce(into: [String: ProjectFiles.File]()) { memory, file in
            memory[file.key] = parsed ? ProjectFiles.File(parsing: Data(file.value.utf8), displayPath: file.key) : ProjectFiles.File(Data(file.value.utf8))
        }
        let log = DiagnosticLog()
        let loaded = Project.load(root: project.root, displayRoot: "", builtinPlatforms: Fixtures.builtinPlatforms,
                                  files: .memory(inMemory), log: log)
        return (disk, Loaded(project: loaded, log: log))
    }

    @Test(arguments: [false, true])
    func memoryLoadsWhatDiskLoads(parsed: Bool) throws {
        let files = ["Pipelines/show.yaml": Self.pipeline, "Pipelines/other.yml": "title: [", "Presets/q.yaml": Self.presets,
                     "Presets/notes.txt": "not YAML", "Presets/deeper/skipped.yaml": "quality: {}"]
        let (disk, memory) = try loadBothWays(files, parsed: parsed)
        #expect(!disk.diagnostics.isEmpty)
        #expect(memory.diagnostics == disk.diagnostics, "\(memory.dump)\n---\n\(disk.dump)")
        #expect(memory.project.pipelineNames == ["other", "show"])
        #expect(memory.project.pipelineNames == disk.project.pipelineNames)
        #expect(memory.project.pipelines == disk.project.pipelines)
        #expect(memory.project.files == disk.project.files)
        #expect(memory.project.platforms == disk.project.platforms)
    }

    /// A file parsed for another display root is parsed again, as that load shows it.
    @Test func aFileParsedForAnotherDisplayPathIsParsedAgain() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let log = DiagnosticLog()
        _ = Project.load(root: project.root, displayRoot: "show", builtinPlatforms: nil,
                         files: .memory(["Pipelines/show.yaml": ProjectFiles.File(parsing: Data("title: [".utf8), displayPath: "Pipelines/show.yaml")]),
                         log: log)
        #expect(log.all.map(\.location.file) == ["show/Pipelines/show.yaml"], "\(log.all)")
    }

    /// The built-in platforms are decoded once per process; each load still reports what
    /// decoding them reports.
    @Test func aBuiltinPlatformsProblemIsReportedAtEveryLoad() throws {
        let log = DiagnosticLog()
        let catalogue = try #require(YAMLLoader().load(
            text: "platforms:\n  odd:\n    title: Odd\n    ingest: {rtmp: \"rtmp://odd.example/{key}\"}\n    video: {bitrate_by_format: {bogus: 6000k}}\n",
            displayPath: "<built-in>/odd.yaml", into: log))
        let project = try ScratchProject()
        defer { project.remove() }
        var reports: [[Diagnostic]] = []
        for _ in 0..<2 {
            reports.append(project.load(builtinPlatforms: catalogue).diagnostics)
        }
        #expect(reports[0].map(\.code) == ["bad-format-row"] && reports[0].allSatisfy { $0.location.file == "<built-in>/odd.yaml" }, "\(reports[0])")
        #expect(reports[1] == reports[0])
    }
}
