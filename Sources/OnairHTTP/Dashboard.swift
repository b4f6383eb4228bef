import Foundation
import HTTPTypes
import Hummingbird
import OnairControl

/// The dashboard's static files (`Sources/OnairHTTP/Dashboard/`), compiled into the binary.
///
/// SwiftPM's `.embedInCode` turns each file into a byte array at build time. The alternative,
/// `.copy`/`.process` resources, lives on Linux in a `onair_OnairHTTP.resources` folder
/// beside the executable and `Bundle.module` aborts when it is missing — an `onair` binary
/// copied alone onto a server (or into a container image) would lose its dashboard.
struct Dashboard {
    /// One file as served.
    struct File: Sendable {
        var path: String
        var contentType: String
        /// The content, copied into a buffer once: each response shares it.
        var body: ByteBuffer
        /// Strong validator: the content's FNV-1a hash (files change only with the binary).
        var etag: String

        init(path: String, contentType: String, bytes: [UInt8]) {
            self.path = path
            self.contentType = contentType
            body = ByteBuffer(bytes: bytes)
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            etag = "\"" + String(hash, radix: 16) + "\""
        }

        /// 304 when the browser has this version, else the file.
        func response(to request: Request) -> Response {
            var headers: HTTPFields = [.eTag: etag, .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"]
            if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
            headers[.contentType] = contentType
            // Everything the page loads comes from this server; previews are fetched as blobs.
            headers[.contentSecurityPolicy] =
                "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
    }

    static let files: [File] = [
        File(path: "/", contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        File(path: "/dashboard.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.dashboard_css),
        File(path: "/dashboard.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.dashboard_js),
        File(path: "/favicon.svg", contentType: "image/svg+xml", bytes: PackageResources.favicon_svg),
    ]
}
