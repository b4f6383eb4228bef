import Foundation
import OnairHTTP
import OnairTestSupport
import Testing

/// An `hls` destination's folder as the API serves it to the dashboard's player: what is in the
/// folder and nothing else.
@Suite("GET /hls/{destination}/{file}: an hls destination's files, read-only")
struct HLSFilesTests {
    /// A project-like scratch folder: `out/web/` with a playlist and a segment, and a sentinel
    /// file beside it (and a link to it inside) that must never be served.
    struct Folder {
        let project: ScratchProject
        var root: URL { project.root }
        var web: URL { root.appendingPathComponent("out/web") }
        static let sentinel = "SENTINEL-OUTSIDE-7c2e1a"
        static let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nsegment_00000.ts\n"

        init() throws {
            project = try ScratchProject()
            try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
            try Data(Self.playlist.utf8).write(to: web.appendingPathComponent("index.m3u8"))
            try Data([0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 184)).write(to: web.appendingPathComponent("segment_00000.ts"))
            try Data(Self.sentinel.utf8).write(to: root.appendingPathComponent("out/secret.ts"))
            try Data(Self.sentinel.utf8).write(to: web.appendingPathComponent(".hidden.ts"))
            try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("linked.ts").path,
                                                       withDestinationPath: root.appendingPathComponent("out/secret.ts").path)
            try FileManager.default.createDirectory(at: web.appendingPathComponent("folder.ts"), withIntermediateDirectories: true)
        }

        func remove() { project.remove() }
    }

    @Test("the playlist (no-store) and its segments (no-cache) with their MIME types; the list of hls destinations")
    func served() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        var settings = APIServer.Settings()
        settings.hlsFolders = ["web": folder.web]
        try await withServer(settings: settings) { base in
            let playlist = try await HTTP.send(base + "/hls/web/index.m3u8")
            #expect(playlist.status == 200 && playlist.text == Folder.playlist)
            #expect(playlist.header("Content-Type") == "application/vnd.apple.mpegurl")
            #expect(playlist.header("Cache-Control") == "no-store")
            let segment = try await HTTP.send(base + "/hls/web/segment_00000.ts")
            #expect(segment.status == 200 && segment.body.count == 188 && segment.body.first == 0x47)
            #expect(segment.header("Content-Type") == "video/mp2t")
            #expect(segment.header("Cache-Control") == "no-cache")
            let listing = try await HTTP.send(base + "/api/v1/hls")
            let streams = listing.json?["streams"] as? [[String: String]]
            #expect(streams == [["destination": "web", "playlist": "/hls/web/index.m3u8"]], "\(listing.text)")
        }
    }

    @Test("nothing outside the folder: traversal, encoded traversal, hidden files, links, folders, other types, other destinations are 404")
    func refused() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        var settings = APIServer.Settings()
        settings.hlsFolders = ["web": folder.web]
        try await withServer(settings: settings) { base in
            let paths = [
                "/hls/web/../secret.ts", "/hls/web/..%2Fsecret.ts", "/hls/web/%2e%2e%2fsecret.ts", "/hls/web/%2E%2E/secret.ts",
                "/hls/web/.hidden.ts", "/hls/web/linked.ts", "/hls/web/folder.ts", "/hls/web/index.m3u8%00.ts",
                "/hls/web/missing_00009.ts", "/hls/nowhere/index.m3u8", "/hls/web/index.m3u8.bak", "/hls/../out/secret.ts",
            ]
            for path in paths {
                // --path-as-is: curl sends the dots as written instead of resolving them first.
                let reply = try await Subprocess.run("/usr/bin/curl", ["-sS", "--path-as-is", "-w", "\n%{http_code}", base + path], timeout: .seconds(15))
                let lines = reply.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.last == "404", "\(path) answered \(reply.stdout)")
                #expect(!reply.stdout.contains(Folder.sentinel), "\(path) served the file outside the folder")
                #expect(!reply.stdout.contains(folder.root.path), "\(path): the answer names the server's folder")
            }
        }
    }

    @Test("without hls destinations the list is empty")
    func none() async throws {
        try await withServer { base in
            let listing = try await HTTP.send(base + "/api/v1/hls")
            #expect(listing.status == 200 && (listing.json?["streams"] as? [Any])?.isEmpty == true)
        }
    }
}
