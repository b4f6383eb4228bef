import Foundation
import HTTPTypes
import Hummingbird
import OnairControl
import OnairPreview

/// `GET /api/v1/destinations/{name}/preview.jpg`: a picture of what a destination receives.
///
/// While the run prepares or starts, and for a destination not started yet, the picture is the
/// one `onair preview` draws (``PlannedPreviews``) of the combination on air at the run's moment
/// of the show, marked `X-Picture-Source: planned`; once the run is live, the latest picture
/// the destination's encoder gave, marked `live`.
struct PreviewRoute: Sendable {
    let control: ControlHandle
    /// nil: no planned pictures (the answer waits for the live one).
    let planned: PlannedPreviews?

    static let sourceHeader = HTTPField.Name("X-Picture-Source")!

    func add(to router: Router<BasicRequestContext>) {
        router.get("/api/v1/destinations/{name}/preview.jpg") { _, context in
            try await response(for: try context.parameters.require("name"))
        }
    }

    func response(for name: String) async throws -> Response {
        let run = try control.run()
        if let planned, let moment = Self.plannedMoment(of: name, in: await run.status()),
           let picture = try? await planned.picture(of: name, combination: moment.combination, atMs: moment.offsetMs) {
            return Self.jpeg(picture.image, source: "planned", capturedAt: nil)
        }
        do throws(OnairControl.PreviewError) {
            let picture = try await run.preview(of: name)
            return Self.jpeg(picture.jpeg, source: "live", capturedAt: picture.capturedAt)
        } catch {
            switch error {
            case .unknownDestination: throw HTTPError(.notFound, message: error.description)
            case .unavailable: throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "1"], message: error.description)
            }
        }
    }

    /// The combination and the moment of the show (ms) to draw `name` at, when its picture is
    /// the planned one: the run prepares or starts, or the destination has not started; nil
    /// otherwise (and for no such destination).
    static func plannedMoment(of name: String, in status: RunStatus) -> (combination: String?, offsetMs: Int)? {
        guard let destination = status.destinations.first(where: { $0.name == name }) else { return nil }
        guard status.state == .preparing || status.state == .starting || destination.state == .idle else { return nil }
        return (status.overlay, Int(status.elapsed / .milliseconds(1)))
    }

    static func jpeg(_ bytes: Data, source: String, capturedAt: Date?) -> Response {
        var headers: HTTPFields = [.contentType: "image/jpeg", .cacheControl: "no-store", sourceHeader: source]
        if let capturedAt { headers[HTTPField.Name("X-Captured-At")!] = capturedAt.formatted(.iso8601) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
