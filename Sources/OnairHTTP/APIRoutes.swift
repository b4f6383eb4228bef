import Foundation
import HTTPTypes
import Hummingbird
import OnairControl
import Synchronization

/// Every endpoint of a run's HTTP API (see `docs/openapi.yaml`), bound to one ``RunControl``.
struct APIRoutes: Sendable {
    let control: ControlHandle
    let settings: APIServer.Settings
    let redact: @Sendable (String) -> String

    /// The paths served and their methods, for 405 answers and the OpenAPI test.
    static let endpoints: [(path: String, methods: [HTTPRequest.Method])] =
        [
            ("/healthz", [.get]), ("/readyz", [.get]), ("/metrics", [.get]), ("/openapi.yaml", [.get]),
            ("/api/v1/status", [.get]), ("/api/v1/events", [.get]), ("/api/v1/overlay", [.post]), ("/api/v1/stop", [.post]),
            ("/api/v1/renditions/{id}/bitrate", [.post]), ("/api/v1/destinations/{name}/preview.jpg", [.get]), ("/report", [.get]),
            ("/api/v1/sources/{name}/mute", [.post]), ("/api/v1/sources/{name}/play", [.post]),
            ("/api/v1/mixes/{mix}/gain", [.post]), ("/api/v1/mixes/{mix}/mute", [.post]), ("/api/v1/destinations/{name}/mute", [.post]),
            ("/api/v1/hls", [.get]), ("/hls/{destination}/{file}", [.get]),
            ("/api/v1/schedule", [.get, .post]), ("/api/v1/schedule/{id}", [.delete]),
        ] + Dashboard.files.map { ($0.path, [.get]) }

    /// `docs/openapi.yaml` (embedded at build time) in a buffer made once, shared by every answer.
    static let openAPI = ByteBuffer(bytes: PackageResources.openapi_yaml)

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        // Order matters: a middleware only wraps the routes added after it.
        router.add(middleware: JSONErrors(redact: redact))
        if let token = settings.token { router.add(middleware: BearerAuthentication(token: token, open: ["/healthz", "/readyz"])) }
        let json = JSONBodies(redact: redact)

        router.get("/healthz") { _, _ in
            json.response(.ok, ["status": "ok"])
        }
        router.get("/readyz") { _, _ in
            let readiness = try await control.run().readiness()
            return json.response(readiness.ready ? .ok : .serviceUnavailable, readiness)
        }
        router.get("/api/v1/status") { _, _ in
            json.response(.ok, try await control.run().status())
        }
        router.get("/api/v1/events") { request, _ in
            EventStream(control: try control.run(), heartbeat: settings.heartbeat, redact: redact).response(
                to: request, lastEventID: try Self.lastEventID(of: request))
        }
        router.post("/api/v1/overlay") { request, context in
            let choice = try await OverlayRequest.read(from: request, context: context)
            let run = try control.run()
            do throws(OverlaySwitchError) {
                return json.response(.ok, try await run.switchOverlay(to: choice.name))
            } catch {
                switch error {
                case .unknown: throw HTTPError(.notFound, message: error.description)
                case .unavailable, .refused: throw HTTPError(.conflict, message: error.description)
                }
            }
        }
        router.post("/api/v1/renditions/{id}/bitrate") { request, context in
            try await setBitrate(request, context: context, json: json)
        }
        addSourceRoutes(to: router, json: json)
        MixRoutes(control: control).add(to: router, json: json)
        ScheduleRoutes(control: control).add(to: router, json: json)
        router.post("/api/v1/stop") { _, _ in
            let run = try control.run()
            await run.stop()
            return json.response(.accepted, await run.status())
        }
        PreviewRoute(control: control, planned: settings.plannedPreviews).add(to: router)
        addMetricsRoute(to: router)
        RunReportPage(run: settings.recordedRun).add(to: router)
        HLSFiles(folders: settings.hlsFolders).add(to: router, json: json)
        addDocumentRoutes(to: router)
        return router
    }

    /// `GET /metrics`, from one ``RunMetrics`` for the server's life.
    private func addMetricsRoute(to router: Router<BasicRequestContext>) {
        let metrics = RunMetrics()
        router.get("/metrics") { _, _ in
            let text = redact(metrics.exposition(of: try await control.run().status(), notifications: settings.notifyCounts?() ?? []))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    /// `GET /openapi.yaml` and the dashboard's files.
    private func addDocumentRoutes(to router: Router<BasicRequestContext>) {
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: Self.openAPI))
        }
        for file in Dashboard.files {
            router.get(RouterPath(file.path)) { request, _ in file.response(to: request) }
        }
    }

    /// `POST /api/v1/renditions/{id}/bitrate`: what changed, or why not as a 4xx.
    private func setBitrate(_ request: Request, context: BasicRequestContext, json: JSONBodies) async throws -> Response {
        let rendition = try context.parameters.require("id")
        let setting = try await BitrateRequest.read(from: request, context: context).setting
        let run = try control.run()
        do throws(BitrateError) {
            return json.response(.ok, try await run.setBitrate(of: rendition, to: setting))
        } catch {
            switch error {
            case .unknown: throw HTTPError(.notFound, message: error.description)
            case .fixed, .refused: throw HTTPError(.conflict, message: error.description)
            case .invalid: throw HTTPError(.badRequest, message: error.description)
            }
        }
    }

    /// `POST /api/v1/sources/{name}/mute` and `/play`.
    private func addSourceRoutes(to router: Router<BasicRequestContext>, json: JSONBodies) {
        router.post("/api/v1/sources/{name}/mute") { request, context in
            let source = try context.parameters.require("name")
            let ask = try await MuteRequest.read(from: request, context: context)
            let run = try control.run()
            let at = ask.atMs.map { MediaInstant($0) * 1000 }
            do throws(SourceControlError) {
                let video = ask.video ?? false, audio = ask.audio ?? false
                if ask.muted ?? true { return json.response(.ok, try await run.mute(source: source, video: video, audio: audio, at: at)) }
                return json.response(.ok, try await run.unmute(source: source, video: video, audio: audio, at: at))
            } catch {
                throw Self.httpError(error)
            }
        }
        router.post("/api/v1/sources/{name}/play") { request, context in
            let source = try context.parameters.require("name")
            let ask = try await PlayRequest.read(from: request, context: context)
            let run = try control.run()
            do throws(SourceControlError) {
                let at = ask.atMs.map { MediaInstant($0) * 1000 }
                return json.response(.ok, try await run.play(clip: ask.clip, in: source, loop: ask.loop ?? false, at: at))
            } catch {
                throw Self.httpError(error)
            }
        }
    }

    /// The answer to a refused source control call.
    static func httpError(_ error: SourceControlError) -> HTTPError {
        switch error {
        case .unknownSource: HTTPError(.notFound, message: error.description)
        // As a combination that can't go on air: what is on air stays, a 409.
        case .clipUnavailable, .refused: HTTPError(.conflict, message: error.description)
        }
    }

    /// `Last-Event-ID` (what EventSource sends when it reconnects), or `?last_event_id=`; the
    /// header when both are sent (the dashboard's EventSource reconnects to a URL with
    /// `last_event_id=0`). Each one sent must be an event id as `docs/openapi.yaml` declares it.
    static func lastEventID(of request: Request) throws -> UInt64? {
        let query = try request.uri.queryParameters["last_event_id"].map { try eventID(String($0), named: "last_event_id") }
        let header = try request.headers[HTTPField.Name("Last-Event-ID")!].map { try eventID($0, named: "Last-Event-ID") }
        return header ?? query
    }

    /// An event id as a client sends it: 1 to 18 digits (at most 999999999999999999, within a
    /// signed 64-bit integer of any client; no run numbers that many events).
    static func eventID(_ text: String, named name: String) throws -> UInt64 {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let id = UInt64(text)
        else {
            throw HTTPError(.badRequest, message: "\(name) must be the id of an event seen: a whole number of at most 18 digits")
        }
        return id
    }
}

/// The run an API steers, until its server stops. What NIO still holds of the routes after that
/// (a closing connection's handlers, on event loop threads that live as long as the process)
/// must not keep the ended run, its workers and its event history alive until the process exits.
final class ControlHandle: Sendable {
    private let current: Mutex<(run: any RunControl, schedule: (any ScheduleControl)?)?>

    init(_ control: any RunControl, schedule: (any ScheduleControl)? = nil) {
        current = Mutex((control, schedule))
    }

    /// The run; a 503 once the server has stopped.
    func run() throws -> any RunControl {
        try held().run
    }

    /// The run's schedule (nil: the run has none to show or change); a 503 once the server has stopped.
    func schedule() throws -> (any ScheduleControl)? {
        try held().schedule
    }

    private func held() throws -> (run: any RunControl, schedule: (any ScheduleControl)?) {
        guard let held = current.withLock({ $0 }) else {
            throw HTTPError(.serviceUnavailable, message: "the run's API has stopped")
        }
        return held
    }

    /// Lets go of the run.
    func release() {
        current.withLock { $0 = nil }
    }
}

/// The body of `POST /api/v1/overlay`.
struct OverlayRequest: Decodable {
    /// The combination's name, or its 1-based number as text.
    var name: String

    /// Reads and checks the body: any problem is a 400 that says what is wrong.
    static func read(from request: Request, context: BasicRequestContext) async throws -> OverlayRequest {
        let choice = try await JSONRequestBody.decode(OverlayRequest.self, from: request, example: #"{"name": "keyed"}"#)
        guard !choice.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HTTPError(.badRequest, message: "name must name an overlay combination")
        }
        return choice
    }
}

/// The body of `POST /api/v1/renditions/{id}/bitrate`: `{"kbps": 2500}` pins the rendition's
/// video bitrate, `{"auto": true}` hands it back to adaptive bitrate.
struct BitrateRequest: Decodable {
    /// The video bitrate, kbit/s (a whole number; read as any number to say so when it is not).
    var kbps: Double?
    /// True: adaptive bitrate steers it again.
    var auto: Bool?

    /// The most a request may ask for, kbit/s (no rendition's range reaches it; the engine clamps).
    static let mostKbps = 1_000_000

    /// Reads and checks the body: any problem is a 400 that says what is wrong.
    static func read(from request: Request, context: BasicRequestContext) async throws -> BitrateRequest {
        let example = #"{"kbps": 2500} or {"auto": true}"#
        let body = try await JSONRequestBody.decode(BitrateRequest.self, from: request, example: example)
        switch (body.kbps, body.auto) {
        case (let kbps?, nil):
            guard kbps.rounded() == kbps, kbps >= 1, kbps <= Double(mostKbps) else {
                let shown = kbps.rounded() == kbps && abs(kbps) < 1e15 ? String(Int(kbps)) : String(kbps)
                throw HTTPError(.badRequest, message: "kbps must be a whole number from 1 to \(mostKbps) (kbit/s of video), not \(shown)")
            }
        case (nil, true?): break
        case (nil, false?): throw HTTPError(.badRequest, message: #"auto can only be true; to pin a bitrate send {"kbps": 2500}"#)
        default: throw HTTPError(.badRequest, message: "give either kbps or auto, such as " + example)
        }
        return body
    }

    /// What the engine is asked for.
    var setting: BitrateSetting {
        kbps.map { .bitsPerSecond(Int($0) * 1000) } ?? .auto
    }
}

/// A request's JSON body, read and decoded: the wrong type is a 415, too long a 413, and what
/// does not decode a 400 that shows an example of what does.
enum JSONRequestBody {
    static func decode<Body: Decodable>(_ type: Body.Type, from request: Request, example: String) async throws -> Body {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw HTTPError(.unsupportedMediaType, message: "the body must be application/json, such as " + example)
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: 64 * 1024)
        } catch {
            throw HTTPError(.contentTooLarge, message: "the body must be at most 64 KiB")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(body.readableBytesView))
        } catch DecodingError.typeMismatch(let expected, let context) where !context.codingPath.isEmpty {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw HTTPError(.badRequest, message: "\(key) must be \(describe(expected)), such as " + example)
        } catch {
            throw HTTPError(.badRequest, message: "the body must be JSON such as " + example)
        }
    }

    /// What a value of `type` looks like in JSON, for people.
    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "text"
        default: "\(type)"
        }
    }
}

/// JSON answers, encoded the same way everywhere and passed through the run's redaction.
struct JSONBodies: Sendable {
    let redact: @Sendable (String) -> String

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func response(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let text: String
        do {
            text = String(decoding: try Self.encoder.encode(value), as: UTF8.self)
        } catch {
            // Only a NaN or an infinity can get here; say so rather than fail the request.
            return Self.text(.internalServerError, #"{"error":"unencodable value"}"#)
        }
        return Self.text(status, redact(text))
    }

    static func text(_ status: HTTPResponse.Status, _ json: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: json + "\n")))
    }
}

/// The body of `POST /api/v1/sources/{name}/mute`: which parts, muted or not, and when.
struct MuteRequest: Decodable {
    /// The picture; with neither `video` nor `audio` true, both.
    var video: Bool?
    /// The sound.
    var audio: Bool?
    /// False unmutes (default: true).
    var muted: Bool?
    /// The media time (ms on the run's output timeline) to land on; absent: the next frame.
    var atMs: Int?

    private enum CodingKeys: String, CodingKey {
        case video, audio, muted, atMs = "at_ms"
    }

    static func read(from request: Request, context: BasicRequestContext) async throws -> MuteRequest {
        let ask = try await JSONRequestBody.decode(MuteRequest.self, from: request, example: #"{"video": true, "muted": true}"#)
        try checkMediaTime(ask.atMs)
        return ask
    }
}

/// The body of `POST /api/v1/sources/{name}/play`: a clip of the project, looped or not, and when.
struct PlayRequest: Decodable {
    /// The clip's path, relative to the project folder (and inside it).
    var clip: String
    var loop: Bool?
    /// The media time (ms on the run's output timeline) to land on; absent: as soon as it is open.
    var atMs: Int?

    private enum CodingKeys: String, CodingKey {
        case clip, loop, atMs = "at_ms"
    }

    static func read(from request: Request, context: BasicRequestContext) async throws -> PlayRequest {
        let ask = try await JSONRequestBody.decode(PlayRequest.self, from: request, example: #"{"clip": "assets/brb.mp4"}"#)
        try checkMediaTime(ask.atMs)
        // The API plays what the project holds, not any file the process can read.
        let parts = ask.clip.split(separator: "/", omittingEmptySubsequences: false)
        guard !ask.clip.isEmpty, !ask.clip.hasPrefix("/"), !parts.contains("..") else {
            throw HTTPError(.badRequest, message: "clip must be a path inside the project folder, such as assets/brb.mp4")
        }
        return ask
    }
}

/// `at_ms` as a request gives it: a media time from 0 to 10¹² ms (about 31 years), which the
/// engine's microseconds hold with room to spare.
func checkMediaTime(_ milliseconds: Int?) throws {
    guard let milliseconds else { return }
    guard (0...1_000_000_000_000).contains(milliseconds) else {
        throw HTTPError(.badRequest, message: "at_ms must be a media time: from 0 to 1000000000000 milliseconds")
    }
}
