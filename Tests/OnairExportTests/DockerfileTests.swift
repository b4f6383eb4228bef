import Foundation
import OnairTestSupport
import Testing

/// The Dockerfile, checked without a container engine: hadolint's rules, and the runtime stage
/// installs every library the onair binary links (besides Swift's own, linked in statically by
/// the build stage, and the C and C++ runtimes every Debian image has).
@Suite struct DockerfileTests {
    static let dockerfile = repositoryRoot.appendingPathComponent("Dockerfile")

    @Test func hadolintFindsNothing() async throws {
        let hadolint = try InstalledTool.require("hadolint")
        let result = try await Subprocess.run(hadolint, ["--no-color", Self.dockerfile.path], timeout: .seconds(60))
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result)")
    }

    @Test func theRuntimeStageIsDebian12WithANonRootUser() throws {
        let text = try String(contentsOf: Self.dockerfile, encoding: .utf8)
        let stages = text.split(separator: "\n").filter { $0.hasPrefix("FROM ") }
        #expect(stages.count == 2 && stages.last == "FROM debian:12-slim", "\(stages)")
        #expect(stages.first?.contains("-bookworm AS build") == true, "the build stage must be Debian 12 too (FFmpeg 5.1 headers)")
        #expect(text.contains("USER 10001:10001") && text.contains("--static-swift-stdlib"))
    }

    @Test func theRuntimeStageInstallsEveryLibraryTheBinaryLinks() async throws {
        let binary = try #require(OnairBinary.path, "\(OnairBinary.notFound)")
        let text = try String(contentsOf: Self.dockerfile, encoding: .utf8)
        let runtime = try #require(text.components(separatedBy: "FROM debian:12-slim").last)
        let installed = Set(runtime.components(separatedBy: "apt-get install").dropFirst().first?
            .components(separatedBy: "&&").first?
            .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" }).map(String.init).filter { !$0.hasPrefix("-") } ?? [])
        #expect(installed.contains("libavformat59"), "\(installed)")
        // In every Debian image (essential, or required by apt).
        let base: Set<String> = ["libc6", "libgcc-s1", "libstdc++6", "zlib1g"]

        let readelf = try await Subprocess.run("/usr/bin/readelf", ["-d", binary], timeout: .seconds(30))
        try #require(readelf.status == 0, "\(readelf)")
        let needed = readelf.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(needed.contains { $0.hasPrefix("libavformat") }, "\(needed)")
        let swiftRuntime = ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libXCTest", "libTesting"]
        let ldd = try await Subprocess.run("/usr/bin/ldd", [binary], timeout: .seconds(30))
        for library in needed where !swiftRuntime.contains(where: { library.hasPrefix($0) }) {
            // `libavformat.so.59 => /lib/…/libavformat.so.59 (0x…)`, or for the loader `/lib64/ld-linux-x86-64.so.2 (0x…)`.
            let line = try #require(ldd.stdout.split(separator: "\n").first { $0.contains(library) }, "\(library) not resolved: \(ldd.stdout)")
            let path = try #require((line.components(separatedBy: " => ").last ?? "").split(whereSeparator: \.isWhitespace).first.map(String.init),
                                    "\(library) not resolved: \(line)")
            let owner = try await Subprocess.run("/usr/bin/dpkg", ["-S", path], timeout: .seconds(30))
            // A library found through a /lib → /usr/lib link is registered under the other name.
            let alternative = path.hasPrefix("/usr/lib/") ? String(path.dropFirst(4)) : "/usr" + path
            let resolved = owner.status == 0 ? owner : try await Subprocess.run("/usr/bin/dpkg", ["-S", alternative], timeout: .seconds(30))
            let package = try #require(resolved.stdout.split(separator: ":").first.map(String.init), "no package owns \(path): \(resolved)")
            #expect(installed.contains(package) || base.contains(package), "\(library) comes from \(package), which the runtime stage does not install")
        }
    }
}
