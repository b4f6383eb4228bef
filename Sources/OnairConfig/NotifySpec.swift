import Foundation

/// How a notification's body is written.
public enum NotifyFormat: String, CaseIterable, Hashable, Sendable, Codable {
    /// The event as the API's event JSON (a line of `--log-format json`).
    case json
    /// A Slack incoming webhook's `{"text": …}`.
    case slack
    /// A Discord webhook's `{"content": …}`.
    case discord
}

/// One `notify:` target of a pipeline: where alerts go, which events, how they are written and
/// signed.
public struct NotifySpec: Hashable, Sendable {
    /// The target's name (its key under `notify:`).
    public var name: String
    /// The http or https URL each alert is POSTed to.
    public var url: Located<String>
    /// Which events it gets, as written: names and patterns with `*` (`destination.failed`,
    /// `input.*`, `*`).
    public var events: NotifyEventFilter
    /// How the body is written.
    public var format: NotifyFormat
    /// The secret that signs each delivery (Standard Webhooks); nil: unsigned.
    public var secret: SecretReference?
    /// Give up one attempt after this long, ms.
    public var timeoutMs: Int
    /// Alerts waiting for delivery, at most; past it the oldest is dropped (and counted).
    public var queue: Int
    /// Where the target is written.
    public var location: SourceLocation

    /// 15 s: the low end of what Standard Webhooks recommends receivers be given.
    public static let defaultTimeoutMs = 15_000
    /// 100 alerts.
    public static let defaultQueue = 100
    /// What the notifier allows beyond one attempt for the alerts still queued once the run has
    /// stopped, ms (see ``drainMs``).
    public static let drainSlackMs = 1000

    /// Once the run has stopped, how long this target's last alerts may still take, ms: one
    /// attempt (``timeoutMs``) and ``drainSlackMs``. The process exits after the engine's drain
    /// and then this, so an orchestrator's grace period must cover both.
    public var drainMs: Int { timeoutMs + Self.drainSlackMs }

    /// A target.
    public init(
        name: String, url: Located<String>, events: NotifyEventFilter, format: NotifyFormat = .json, secret: SecretReference? = nil,
        timeoutMs: Int = defaultTimeoutMs, queue: Int = defaultQueue, location: SourceLocation
    ) {
        self.name = name
        self.url = url
        self.events = events
        self.format = format
        self.secret = secret
        self.timeoutMs = timeoutMs
        self.queue = queue
        self.location = location
    }

    /// Decodes the target `name` (its `extends:` already merged); nil when its url or events
    /// are missing or wrong (reported).
    static func decode(name: String, node: ConfigNode, location: SourceLocation, context: DecodingContext) -> NotifySpec? {
        guard let reader = ObjectReader(node, ConfigSchema.notifyTarget, subject: "notify target '\(name)'", context: context) else { return nil }
        let url = reader.text("url").flatMap { checkURL($0, target: name, log: context.log) }
        let events = reader.locatedWords("events").flatMap { NotifyEventFilter.decode($0, target: name, log: context.log) }
        let secret = reader["secret"].flatMap {
            SecretReference.decode(
                $0,
                of: .init(
                    subject: "notify target '\(name)'", what: "webhook secret", plural: "secrets", field: "secret",
                    variable: SecretReference.suggestedVariable(for: name).replacingOccurrences(of: "_STREAM_KEY", with: "_WEBHOOK_SECRET"),
                    file: "~/.config/onair/\(name).secret", schema: ConfigSchema.webhookSecret), context: context)
        }
        guard let url, let events else { return nil }
        return NotifySpec(
            name: name, url: url, events: events, format: reader.choice("format", as: NotifyFormat.self)?.value ?? .json, secret: secret,
            timeoutMs: reader.duration("timeout")?.value ?? defaultTimeoutMs, queue: reader.integer("queue")?.value ?? defaultQueue,
            location: location)
    }

    /// The targets of a pipeline's `notify:`, each with its `extends:` of a preset merged in;
    /// those that fail to decode are left out (reported).
    static func decodeAll(_ entries: [ConfigNode.Entry], presets: PresetLibrary, context: DecodingContext) -> [NotifySpec] {
        entries.compactMap { entry in
            presets.decode(entry.value, in: .notify, ownName: entry.key, siblings: [:], context: context) {
                decode(name: entry.key, node: $0, location: entry.keyLocation, context: context)
            }
        }
    }

    /// `url` when it is an http or https URL with a host; nil (reported) otherwise.
    private static func checkURL(_ url: Located<String>, target: String, log: DiagnosticLog) -> Located<String>? {
        guard let parsed = URL(string: url.value), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
            parsed.host?.isEmpty == false
        else {
            log.error("bad-url", "the url of notify target '\(target)' must be an http or https URL", at: url.location,
                      suggestion: "e.g. https://hooks.slack.com/services/… or http://127.0.0.1:9000/onair")
            return nil
        }
        return url
    }
}
