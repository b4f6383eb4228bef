import Foundation
import OnairConfig
import OnairControl
import OnairTestSupport
import Testing
@testable import OnairNotify

/// Standard Webhooks 1.0 signatures: the specification's test vector, and the reference
/// Python library verifying what onair sends.
@Suite("Standard Webhooks signatures")
struct WebhookSignerTests {
    @Test("the specification's test vector")
    func vector() throws {
        let signer = try WebhookSigner(secret: specSecret)
        let signature = signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        // The prefix is optional, as the reference libraries take it.
        #expect(try WebhookSigner(secret: String(specSecret.dropFirst(6))).signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8)) == signature)
        #expect("\(signer)" == "<webhook secret>")
    }

    @Test("a secret that is not base64, or of fewer than 24 bytes, is refused")
    func badSecrets() {
        #expect(throws: WebhookSigner.SecretProblem.notBase64) { try WebhookSigner(secret: "whsec_not base64!") }
        #expect(throws: WebhookSigner.SecretProblem.length(bytes: 3)) { try WebhookSigner(secret: "whsec_YWJj") }
    }

    @Test("the reference library (python standardwebhooks) verifies a delivery onair made")
    func referenceLibrary() async throws {
        let receiver = try WebhookReceiver()
        try await receiver.start()
        let run = EventsOnlyRun()
        let target = NotifyTarget(name: "hook", url: receiver.url, events: .init(["*"]), signer: try WebhookSigner(secret: specSecret))
        let notifier = Notifier(targets: [target], control: run, note: { _ in })
        async let finished: Void = notifier.run()
        run.hub.publish(StatusEvent(.runStopped(reason: "stopped by the operator")))
        run.hub.finish()
        try await finished
        await receiver.stop()
        let delivery = try #require(receiver.deliveries.first)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-swh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try delivery.body.write(to: folder.appendingPathComponent("body"))
        try JSONSerialization.data(withJSONObject: delivery.headers).write(to: folder.appendingPathComponent("headers.json"))
        let script = """
            import json, sys
            from standardwebhooks.webhooks import Webhook
            body = open(sys.argv[1] + "/body", "rb").read()
            headers = json.load(open(sys.argv[1] + "/headers.json"))
            print(json.dumps(Webhook(sys.argv[2]).verify(body, headers)))
            try:
                Webhook("whsec_" + "A" * 32).verify(body, headers)
                print("a wrong secret verified")
                sys.exit(1)
            except Exception:
                pass
            """
        let output = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script, folder.path, specSecret], timeout: .seconds(30))
        #expect(output.status == 0, "python standardwebhooks (pip install standardwebhooks): \(output)")
        #expect(output.stdout.contains("run.stopped"), "\(output)")
    }
}
