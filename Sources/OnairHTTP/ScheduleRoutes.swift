import Foundation
import HTTPTypes
import Hummingbird
import OnairControl

/// `GET/POST /api/v1/schedule` and `DELETE /api/v1/schedule/{id}`: the running schedule seen,
/// an action added (written as a pipeline's `schedule:` item, YAML or JSON), a pending one
/// cancelled. Everything goes through the run's ``ScheduleControl``.
struct ScheduleRoutes: Sendable {
    let control: ControlHandle

    /// The media types an action may be sent as (JSON is YAML).
    static let bodyTypes: Set<String> = ["application/json", "application/yaml", "application/x-yaml", "text/yaml"]

    func add(to router: Router<BasicRequestContext>, json: JSONBodies) {
        router.get("/api/v1/schedule") { _, _ in
            let timeline = try await control.schedule()?.timeline()
            return json.response(.ok, timeline ?? .empty)
        }
        router.post("/api/v1/schedule") { request, _ in
            let text = try await Self.text(of: request)
            guard let schedule = try control.schedule() else { throw HTTPError(.conflict, message: "this run takes no scheduled actions") }
            do throws(ScheduleChangeError) {
                return json.response(.created, try await schedule.add(text))
            } catch {
                return Self.answer(error, json: json)
            }
        }
        router.delete("/api/v1/schedule/{id}") { _, context in
            let id = try Self.id(context.parameters.require("id"))
            guard let schedule = try control.schedule() else { throw HTTPError(.notFound, message: "no action #\(id) in the schedule") }
            do throws(ScheduleChangeError) {
                return json.response(.ok, ["cancelled": try await schedule.cancel(id)])
            } catch {
                return Self.answer(error, json: json)
            }
        }
    }

    /// The body: one action as UTF-8 YAML or JSON, at most 64 KiB.
    static func text(of request: Request) async throws -> String {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard let type, bodyTypes.contains(type) else {
            throw HTTPError(.unsupportedMediaType, message: #"the body must be application/json or application/yaml, such as {"at": "+5m", "overlay": "keyed"}"#)
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: 64 * 1024) else {
            throw HTTPError(.contentTooLarge, message: "the body must be at most 64 KiB")
        }
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw HTTPError(.badRequest, message: "the body must be UTF-8 text")
        }
        return text
    }

    /// An action's id as a path gives it: a whole number from 1.
    static func id(_ text: String) throws -> Int {
        guard text.utf8.count <= 9, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let id = Int(text), id >= 1 else {
            throw HTTPError(.badRequest, message: "an action's id is a whole number from 1, as GET /api/v1/schedule lists them")
        }
        return id
    }

    /// A refused change: 400 (not one action) or 422 (an action that does not check) with
    /// every problem located in the text sent, 404 (no such action), 409 (settled, or the run
    /// can't take actions now).
    static func answer(_ error: ScheduleChangeError, json: JSONBodies) -> Response {
        let status: HTTPResponse.Status = switch error {
        case .malformed: .badRequest
        case .invalid: .unprocessableContent
        case .unknown: .notFound
        case .settled, .unavailable: .conflict
        }
        return json.response(status, Refusal(error: error.description, problems: error.problems.isEmpty ? nil : error.problems))
    }

    /// `{"error": "…", "problems": [...]}`.
    struct Refusal: Encodable {
        var error: String
        var problems: [ScheduleProblem]?
    }
}
