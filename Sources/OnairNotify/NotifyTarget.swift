import Foundation
import OnairConfig

/// A `notify:` target ready to deliver: its secret read and checked, its policy set.
public struct NotifyTarget: Sendable {
    /// The target's name.
    public var name: String
    /// Where alerts are POSTed.
    public var url: String
    /// The events it gets.
    public var events: NotifyEventFilter
    /// How bodies are written.
    public var format: NotifyFormat
    /// Signs each delivery; nil: unsigned.
    public var signer: WebhookSigner?
    /// Queue, timeout and retries.
    public var policy: DeliveryPolicy

    /// A target.
    public init(name: String, url: String, events: NotifyEventFilter, format: NotifyFormat = .json, signer: WebhookSigner? = nil,
                policy: DeliveryPolicy = DeliveryPolicy()) {
        self.name = name
        self.url = url
        self.events = events
        self.format = format
        self.signer = signer
        self.policy = policy
    }

    /// Why a target can't deliver.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The targets `specs` write, each secret read from where it is referenced; throws for the
    /// first that can't be read or can't sign (before the run goes live).
    public static func resolve(_ specs: [NotifySpec], environment: [String: String], projectRoot: URL) throws(Problem) -> [NotifyTarget] {
        var targets: [NotifyTarget] = []
        for spec in specs {
            var signer: WebhookSigner?
            if let reference = spec.secret {
                let what = "the webhook secret of notify target '\(spec.name)'"
                do {
                    signer = try WebhookSigner(secret: try reference.read(environment: environment, projectRoot: projectRoot, what: what))
                } catch let problem as SecretReadProblem {
                    throw Problem(description: problem.description)
                } catch {
                    throw Problem(description: "\(what) (\(reference)) \(error)")
                }
            }
            let policy = DeliveryPolicy(queue: spec.queue, timeout: .milliseconds(spec.timeoutMs))
            targets.append(NotifyTarget(name: spec.name, url: spec.url.value, events: spec.events, format: spec.format, signer: signer, policy: policy))
        }
        return targets
    }
}
