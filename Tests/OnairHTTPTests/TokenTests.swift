import Foundation
import OnairConfig
import OnairEngine
import OnairHTTP
import OnairTestSupport
import Testing

@Suite("A token guards the API; without one it listens on loopback only")
struct TokenTests {
    static let token = "TOKEN-SENTINEL-9d2e71c4b8"

    @Test(
        "listening on anything but loopback without a token is refused before binding",
        arguments: ["0.0.0.0:0", "[::]:0", "192.0.2.1:8750"])
    func refused(address: String) async throws {
        let listen = try #require(ListenAddress(address))
        let server = APIServer(control: ScriptedRun(), settings: .init(listen: listen))
        do {
            _ = try await server.start()
            Issue.record("started on \(address) without a token")
            await server.stop()
        } catch {
            #expect(error.description.hasPrefix("listening on \(listen) lets other machines steer the run, so it needs a token"))
        }
    }

    @Test("with a token: missing or wrong → 401 with a JSON error; Bearer or Basic with the token → served; the probes need none")
    func required() async throws {
        try await withServer(settings: .init(token: APIToken(Self.token))) { base in
            for path in [
                "/api/v1/status", "/metrics", "/", "/openapi.yaml", "/api/v1/events", "/api/v1/destinations/youtube/preview.jpg",
                "/nowhere",
            ] {
                let missing = try await HTTP.send(base + path)
                #expect(missing.status == 401, "\(path)")
                #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                #expect(missing.json?["error"] as? String == "this API needs its token: Authorization: Bearer TOKEN")
                for wrong in ["Bearer \(Self.token)x", "Bearer \(Self.token.dropLast())", "Bearer", "Token \(Self.token)", "bearer  "] {
                    let reply = try await HTTP.send(base + path, headers: ["Authorization": wrong])
                    #expect(reply.status == 401, "\(path) with \(wrong)")
                    #expect(!reply.text.contains(Self.token))
                }
            }
            let wrongPost = try await HTTP.post(
                base + "/api/v1/overlay", json: #"{"name": "keyed"}"#, headers: ["Authorization": "Bearer nope"])
            #expect(wrongPost.status == 401)
            #expect(try await HTTP.send(base + "/api/v1/stop", method: "POST").status == 401)
            #expect(try await HTTP.post(base + "/api/v1/schedule", json: #"{"after": "5s", "end": true}"#).status == 401)
            #expect(try await HTTP.send(base + "/api/v1/schedule", headers: ["Authorization": "Bearer nope"]).status == 401)
            #expect(try await HTTP.send(base + "/api/v1/schedule/1", method: "DELETE").status == 401)

            let bearer = try await HTTP.send(base + "/api/v1/status", headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(bearer.status == 200)
            let basic = "Basic " + Data("operator:\(Self.token)".utf8).base64EncodedString()
            #expect(try await HTTP.send(base + "/", headers: ["Authorization": basic]).status == 200)
            #expect(try await HTTP.send(base + "/healthz").status == 200)
            #expect(try await HTTP.send(base + "/readyz").status == 200)
        }
    }

    @Test("the token never appears in an answer, even when a client sends it where text is echoed")
    func neverEchoed() async throws {
        let authorized = ["Authorization": "Bearer \(Self.token)"]
        try await withServer(settings: .init(token: APIToken(Self.token))) { base in
            let echoes = [
                try await HTTP.send(base + "/api/v1/destinations/\(Self.token)/preview.jpg", headers: authorized),
                try await HTTP.post(base + "/api/v1/overlay", json: #"{"name": "\#(Self.token)"}"#, headers: authorized),
                try await HTTP.send(base + "/\(Self.token)", headers: authorized),
            ]
            for reply in echoes {
                #expect(reply.status == 404)
                #expect(!reply.text.contains(Self.token), "\(reply.text)")
            }
            #expect(APIToken(Self.token).description == "<token>")
        }
    }

    @Test("a token file must be private (0600); a short token or a missing variable is refused with a reason")
    func resolving() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let folder = project.root
        let file = folder.appendingPathComponent("api.token")
        try Data((Self.token + "\n").utf8).write(to: file)
        let written = SourceLocation(file: "Pipelines/show.yaml", line: 3, column: 10)
        let reference = SecretReference(
            origin: .file("api.token"), location: written, file: AssetPath(written: "api.token", path: "api.token", location: written))

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(throws: APIToken.Problem.self) { try APIToken.resolve(reference, environment: [:], projectRoot: folder) }
        do {
            _ = try APIToken.resolve(reference, environment: [:], projectRoot: folder)
        } catch {
            #expect(error.description == "the API token is not private: api.token can be read by others (mode 644); run: chmod 600 api.token")
            #expect(!error.description.contains(Self.token))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(try APIToken.resolve(reference, environment: [:], projectRoot: folder).value == Self.token)

        let variable = SecretReference(origin: .environment("ONAIR_API_TOKEN"), location: written)
        #expect(try APIToken.resolve(variable, environment: ["ONAIR_API_TOKEN": Self.token], projectRoot: folder).value == Self.token)
        #expect(throws: APIToken.Problem.self) { try APIToken.resolve(variable, environment: [:], projectRoot: folder) }
        #expect(throws: APIToken.Problem.self) {
            try APIToken.resolve(variable, environment: ["ONAIR_API_TOKEN": "short"], projectRoot: folder)
        }
    }
}
