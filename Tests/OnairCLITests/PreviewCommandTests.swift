import Foundation
import OnairTestSupport
import Testing

/// `onair preview` on the shipped evening show: the pictures written, read back by ffprobe,
/// the CI job summary, and bad input refused before anything is written.
@Suite struct PreviewCommandTests {
    @Test func aPictureOfEachDestinationAndASummary() async throws {
        let folder = try ScratchProject()
        defer { folder.remove() }
        let output = try await onair("preview", "evening", "--at", "18:05:05", "--start", "17:55", "--format", "markdown",
                                     "--project", repositoryRoot.path, in: folder.root)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout.hasPrefix("### evening at 18:05:05 (+10m5s into the show)\n"), "\(output.stdout)")
        #expect(output.stdout.contains("On air: **studio**, layers `lower-third`"), "\(output.stdout)")
        #expect(output.stdout.contains("| landscape | 1280×720 | ![landscape](previews/landscape.png) |"), "\(output.stdout)")
        #expect(output.stdout.contains("| vertical | 720×1280 | ![vertical](previews/vertical.png) |"), "\(output.stdout)")
        for (name, width, height) in [("landscape", 1280, 720), ("vertical", 720, 1280)] {
            let streams = await FFprobe.streams(of: folder.root.appendingPathComponent("previews/\(name).png").path, timeout: .seconds(20))
            #expect(streams.map { "\($0.codecName) \($0.width ?? 0)x\($0.height ?? 0)" } == ["png \(width)x\(height)"], "\(name)")
        }
    }

    @Test func oneDestinationBeforeItsStart() async throws {
        let folder = try ScratchProject()
        defer { folder.remove() }
        let output = try await onair("preview", "evening", "--at", "+1m", "--start", "17:55", "--destination", "vertical", "--out", "shots",
                                     "--project", repositoryRoot.path, in: folder.root)
        #expect(output.status == 0, "\(output)")
        #expect(output.stdout == "shots/vertical.png  720x1280  (not live then)\n", "\(output.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.root.appendingPathComponent("shots").path) == ["vertical.png"])
    }

    @Test func badInputWritesNothing() async throws {
        let folder = try ScratchProject()
        defer { folder.remove() }
        let cases: [(arguments: [String], message: String)] = [
            (["evenin"], "no pipeline named 'evenin' in \(repositoryRoot.path)/Pipelines; did you mean 'evening'?"),
            (["evening", "--destination", "verticl"], "pipeline 'evening' has no destination 'verticl'; did you mean 'vertical'?"),
            (["evening", "--overlay", "studi"], "pipeline 'evening' has no overlay combination 'studi'; did you mean 'studio'?"),
            (["evening", "--at", "25:00"], "--at must be +5m, a clock time such as 18:05, or an ISO time"),
        ]
        for (arguments, message) in cases {
            let output = try await onair(["preview"] + arguments + ["--project", repositoryRoot.path, "--out", folder.root.appendingPathComponent("out").path])
            #expect(output.status == 2, "usage error: \(output)")
            #expect(output.stderr.contains(message), "\(output.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.root.appendingPathComponent("out").path))

        // A folder that can't be made: a configuration-time failure, status 1.
        try folder.write("taken", "a file, not a folder")
        let taken = try await onair("preview", "evening", "--project", repositoryRoot.path, "--out", folder.root.appendingPathComponent("taken").path)
        #expect(taken.status == 1, "\(taken)")
        #expect(taken.stderr.contains("could not write the pictures to '\(folder.root.appendingPathComponent("taken").path)'"), "\(taken.stderr)")
    }
}
