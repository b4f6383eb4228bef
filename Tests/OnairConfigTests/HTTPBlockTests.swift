import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// The pipeline's `http:` block: where a run serves its API and which token guards it.
@Suite("http: listen address and API token")
struct HTTPBlockTests {
    /// The valid pipeline with `http: HTTP` on line 10.
    static func pipeline(http: String) -> String {
        Fixtures.validPipeline + "\nhttp: \(http)"
    }

    @Test(
        "HOST:PORT, [IPv6]:PORT; loopback is 127.0.0.0/8, ::1 and localhost",
        arguments: [
            ("127.0.0.1:8750", "127.0.0.1", 8750, true), ("127.3.2.1:0", "127.3.2.1", 0, true), ("[::1]:9000", "::1", 9000, true),
            ("localhost:80", "localhost", 80, true), ("0.0.0.0:8750", "0.0.0.0", 8750, false), ("[::]:1", "::", 1, false),
            ("192.168.1.20:65535", "192.168.1.20", 65535, false), ("studio.local:8750", "studio.local", 8750, false),
        ])
    func parses(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.isLoopback == loopback)
        #expect(address.description == text)
    }

    @Test(
        "not an address",
        arguments: [
            "8750", ":8750", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "::1:8750",
            "[::1]8750", "[127.0.0.1]:80", "host name:80", "127.0.0.1:80x", "[]:80",
        ])
    func refuses(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test("listen and token are decoded")
    func decoded() throws {
        let project = try Fixtures.project(pipeline: Self.pipeline(http: #"{listen: "0.0.0.0:8750", token: {env: ONAIR_API_TOKEN}}"#))
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.filter { $0.severity == .error }.isEmpty, "\(loaded.dump)")
        let http = try #require(loaded.project.pipeline("show")?.http)
        #expect(http.listen?.value == ListenAddress(host: "0.0.0.0", port: 8750))
        #expect(http.listen?.location == at(10, 16))
        #expect(http.token?.origin == .environment("ONAIR_API_TOKEN"))
    }

    @Test("anything but loopback without a token is a warning at listen: (the run still finds one in ONAIR_API_TOKEN, or refuses)")
    func tokenRequired() throws {
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(http: #"{listen: "0.0.0.0:8750"}"#))
        #expect(loaded.codes == ["http-token"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.location == at(10, 16))
        #expect(diagnostic.severity == .warning)
        #expect(diagnostic.message == "listening on 0.0.0.0:8750 lets other machines steer the run, so it needs a token")
        #expect(diagnostic.suggestion == "add token: {env: ONAIR_API_TOKEN} (or {file: PATH}, mode 0600) to http:, "
            + "or set ONAIR_API_TOKEN where it runs, or listen on 127.0.0.1")
        #expect(try Fixtures.loading(pipeline: Self.pipeline(http: #"{listen: "127.0.0.1:8750"}"#)).codes.isEmpty)
    }

    @Test("a malformed address is located, with how to write it")
    func malformed() throws {
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(http: #"{listen: "localhost"}"#))
        #expect(loaded.codes == ["wrong-type"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.location == at(10, 16))
        #expect(diagnostic.message == #"'listen' in http must be an address and port such as "127.0.0.1:8750", found 'localhost'"#)
        #expect(diagnostic.suggestion == #"add the port, e.g. "localhost:8750""#)
        #expect(try Fixtures.loading(pipeline: Self.pipeline(http: "{lisen: x}")).codes == ["unknown-key"])
    }

    @Test("a literal token is an error that never repeats it; a token file is a reference")
    func literalToken() throws {
        let sentinel = "TOKEN-SENTINEL-77aa9f"
        let loaded = try Fixtures.loading(pipeline: Self.pipeline(http: "{token: \(sentinel)}"))
        #expect(loaded.codes == ["literal-key"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message == "http has a literal API token; tokens must not be written in configuration files")
        #expect(
            diagnostic.suggestion
                == "put it in an environment variable and write token: {env: ONAIR_API_TOKEN}, or in a file: token: {file: ~/.config/onair/show.token}"
        )
        #expect(diagnostic.hidesSource)
        SecretTests.expectNoSecret(in: loaded, sentinel)

        let file = try Fixtures.loading(pipeline: Self.pipeline(http: "{token: {file: ../secrets/api.token}}"))
        #expect(file.codes.isEmpty, "\(file.dump)")
        guard case .file(let path)? = file.project.pipeline("show")?.http?.token?.origin else {
            Issue.record("no token file")
            return
        }
        #expect(path == "secrets/api.token")
    }
}
