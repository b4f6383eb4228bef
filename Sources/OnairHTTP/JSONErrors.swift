import Foundation
import HTTPTypes
import Hummingbird

/// Turns every error a route throws into a JSON answer, `{"error": "…"}`, with its status: a
/// bad request is a 4xx that says what is wrong, a path served with another method is a 405
/// naming the methods allowed, and nothing a client sends yields a 5xx.
struct JSONErrors: RouterMiddleware {
    typealias Context = BasicRequestContext

    let redact: @Sendable (String) -> String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            if error.status == .notFound, error.body == nil {
                if let allowed = Self.methods(servedAt: request.uri.path) {
                    return answer(
                        .methodNotAllowed,
                        "\(request.method) is not served at \(request.uri.path); use \(allowed.map(\.rawValue).joined(separator: ", "))",
                        headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
                }
                return answer(.notFound, "nothing is served at \(request.uri.path)")
            }
            return answer(error.status, error.body ?? error.status.reasonPhrase, headers: error.headers)
        } catch let error as any HTTPResponseError {
            return answer(error.status, error.status.reasonPhrase)
        } catch {
            // Not a client's mistake: a defect, reported without its details.
            return answer(.internalServerError, "internal error")
        }
    }

    private func answer(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) -> Response {
        let body =
            (try? JSONBodies.encoder.encode(["error": redact(message)])).map { String(decoding: $0, as: UTF8.self) } ?? #"{"error":"?"}"#
        return JSONBodies.text(status, body, headers: headers)
    }

    /// The methods of the endpoint at `path`, when one is there.
    static func methods(servedAt path: String) -> [HTTPRequest.Method]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return APIRoutes.endpoints.first { endpoint in
            let pattern = endpoint.path.split(separator: "/", omittingEmptySubsequences: false)
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }?.methods
    }
}

/// Lets a request through only with the run's token: `Authorization: Bearer TOKEN`, or — what
/// a browser sends once it asked its user — `Basic` with the token as the password. The
/// `open` paths (the health probes) need none. A missing or wrong token is a 401.
struct BearerAuthentication: RouterMiddleware {
    typealias Context = BasicRequestContext

    let token: APIToken
    let open: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if open.contains(request.uri.path) || presents(request.headers[.authorization]) {
            return try await next(request, context)
        }
        // Browsers ask for Basic credentials; other clients send the bearer token.
        throw HTTPError(
            .unauthorized, headers: [.wwwAuthenticate: #"Bearer realm="onair", Basic realm="onair""#],
            message: request.headers[.authorization] == nil ? "this API needs its token: Authorization: Bearer TOKEN" : "wrong token")
    }

    private func presents(_ authorization: String?) -> Bool {
        guard let authorization, let space = authorization.firstIndex(of: " ") else { return false }
        let scheme = authorization[..<space].lowercased()
        let credentials = authorization[authorization.index(after: space)...].trimmingCharacters(in: .whitespaces)
        switch scheme {
        case "bearer":
            return token.matches(credentials[...])
        case "basic":
            guard let decoded = Data(base64Encoded: credentials).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":")
            else { return false }
            return token.matches(decoded[decoded.index(after: colon)...])
        default:
            return false
        }
    }
}
