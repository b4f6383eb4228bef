import Foundation
import HTTPTypes
import Hummingbird
import OnairConfig

/// The stream as viewers get it: each `hls` destination's playlist and segments, read-only, for
/// the dashboard's player.
///
/// - `GET /api/v1/hls`: the `hls` destinations and their playlists' paths.
/// - `GET /hls/{destination}/{file}`: a file of that destination's folder, nothing else: a
///   name of letters, digits, `.`, `_` and `-` (no folder, no leading dot) ending in `.m3u8`
///   or `.ts`, a regular file and not a symbolic link; anything else is a 404.
///
/// The playlist changes with every segment, so it is never cached (`no-store`); a segment is
/// revalidated (`no-cache`), since a new run in the same folder writes the same names again.
struct HLSFiles: Sendable {
    /// Folders by destination name.
    let folders: [String: URL]

    /// The largest file served: far above a segment of any destination onair writes.
    static let limit = 64 << 20

    /// What `GET /api/v1/hls` answers.
    struct Listing: Encodable {
        struct Stream: Encodable {
            var destination: String
            /// The playlist's path on this server.
            var playlist: String
        }

        var streams: [Stream]
    }

    /// The destinations, in name order, each with its playlist's path.
    var listing: Listing {
        Listing(streams: folders.keys.sorted().map { name in
            Listing.Stream(destination: name, playlist: Self.path(of: "index.m3u8", in: name))
        })
    }

    /// `/hls/NAME/FILE`, the name percent-encoded as one path segment.
    static func path(of file: String, in destination: String) -> String {
        let segment = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? destination
        return "/hls/\(segment)/\(file)"
    }

    func add(to router: Router<BasicRequestContext>, json: JSONBodies) {
        router.get("/api/v1/hls") { _, _ in json.response(.ok, listing) }
        router.get("/hls/{destination}/{file}") { _, context in
            try response(destination: try context.parameters.require("destination"), file: try context.parameters.require("file"))
        }
    }

    /// The file `file` of `destination`'s folder, or a 404 that says why.
    func response(destination: String, file: String) throws -> Response {
        guard let folder = folders[destination] else { throw HTTPError(.notFound, message: "no hls destination '\(destination)'") }
        guard let type = Self.contentType(of: file) else {
            throw HTTPError(.notFound, message: "only a playlist (.m3u8) or a segment (.ts) of the destination's folder is served")
        }
        let read: OpenedFile
        do {
            read = try OpenedFile.read(atPath: folder.appendingPathComponent(file).path, limit: Self.limit, followingLinks: false)
        } catch {
            // The folder's path stays on the server: the answer names the file only.
            throw HTTPError(.notFound, message: "\(destination): \(file) is not there (yet)")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: type == Self.playlistType ? "no-store" : "no-cache",
                .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: read.bytes)))
    }

    static let playlistType = "application/vnd.apple.mpegurl"

    /// The MIME type of a file name served, nil for one refused: anything but a plain name of
    /// letters, digits, `.`, `_` and `-` that does not start with a dot and ends in `.m3u8` or
    /// `.ts` (so no `..`, no `/`, no hidden file).
    static func contentType(of name: String) -> String? {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
        guard allowed, name.utf8.count <= 255, !name.hasPrefix(".") else { return nil }
        if name.hasSuffix(".m3u8") { return playlistType }
        if name.hasSuffix(".ts") { return "video/mp2t" }
        return nil
    }
}
