import Foundation
import OnairConfig
import OnairControl

/// One message for one target: what is POSTed, with the id that stays the same across its
/// retries (`webhook-id`, the receiver's idempotency key).
public struct Alert: Sendable, Equatable {
    /// `msg_` and 32 hex digits: unique per message, no `.` (the signature's delimiter).
    public var id: String
    /// The event's name (`destination.failed`; `notify.test` for a test message).
    public var event: String
    /// The body, exactly as signed and sent.
    public var body: Data

    /// An alert with a fresh id.
    public init(event: String, body: Data, id: String = Alert.newID()) {
        self.id = id
        self.event = event
        self.body = body
    }

    /// A fresh message id.
    public static func newID() -> String {
        "msg_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}

/// How an event becomes a body in each format.
///
/// Events reach the notifier already redacted by the run (stream keys never leave it), and the
/// secret that signs an alert is never part of one.
public enum AlertBody {
    /// The body of `event` of `pipeline` in `format`: json is the API's event JSON (a line of
    /// `--log-format json`); slack and discord one readable line with the pipeline, the event and
    /// what happened.
    public static func of(_ event: StatusEvent, pipeline: String, format: NotifyFormat) -> Data {
        switch format {
        case .json: Data(event.jsonLine(redact: { $0 }).utf8)
        case .slack, .discord: chat(line(event.name, pipeline: pipeline, detail: event.detail), format: format)
        }
    }

    /// The body of the test message `onair notify NAME --test` sends.
    public static func test(pipeline: String, format: NotifyFormat, at time: Date = Date()) -> Data {
        let message = "test alert from onair notify --test"
        switch format {
        case .json:
            let fields: [String: String] = [
                "ts": time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)), "event": "notify.test",
                "pipeline": pipeline, "message": message,
            ]
            return (try? encoder.encode(fields)) ?? Data()
        case .slack, .discord: return chat(line("notify.test", pipeline: pipeline, detail: message), format: format)
        }
    }

    /// `onair studio · destination.failed · youtube: failed (…)`.
    static func line(_ event: String, pipeline: String, detail: String) -> String {
        "onair \(pipeline) · \(event)" + (detail.isEmpty ? "" : " · \(detail)")
    }

    /// `{"text": …}` (Slack: &, < and > escaped, as its text format asks) or `{"content": …}`
    /// (Discord, at most 2000 characters).
    static func chat(_ line: String, format: NotifyFormat) -> Data {
        let payload: [String: String] =
            format == .slack
            ? ["text": line.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")]
            : ["content": String(line.prefix(2000))]
        return (try? encoder.encode(payload)) ?? Data()
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
