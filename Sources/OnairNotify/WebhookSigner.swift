import Crypto
import Foundation

/// Signs deliveries as Standard Webhooks 1.0 says, so a receiver verifies them with that
/// project's libraries: HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, sent as
/// `webhook-signature: v1,<base64>`.
///
/// The secret is written as the specification serializes it: `whsec_` then base64 (the prefix
/// optional, as the reference libraries take it), 24 to 64 bytes once decoded. Its description
/// never shows the key.
public struct WebhookSigner: Sendable, CustomStringConvertible {
    private let key: SymmetricKey

    /// The prefix Standard Webhooks writes before a symmetric secret.
    public static let secretPrefix = "whsec_"
    /// The key lengths, in bytes, the specification allows.
    public static let keyLengths = 24...64

    /// Why a secret can't sign.
    public enum SecretProblem: Error, Equatable, Sendable, CustomStringConvertible {
        /// What follows `whsec_` is not base64.
        case notBase64
        /// The key has `bytes` bytes, outside ``WebhookSigner/keyLengths``.
        case length(bytes: Int)

        public var description: String {
            switch self {
            case .notBase64: "is not whsec_ followed by base64 (make one with: echo whsec_$(openssl rand -base64 32))"
            case .length(let bytes):
                "has \(bytes) bytes once decoded; Standard Webhooks asks for 24 to 64 (make one with: echo whsec_$(openssl rand -base64 32))"
            }
        }
    }

    /// A signer with `secret` (`whsec_…`).
    public init(secret: String) throws(SecretProblem) {
        var encoded = Substring(secret.trimmingCharacters(in: .whitespaces))
        if encoded.hasPrefix(Self.secretPrefix) { encoded = encoded.dropFirst(Self.secretPrefix.count) }
        guard let key = Data(base64Encoded: String(encoded)) else { throw .notBase64 }
        guard Self.keyLengths.contains(key.count) else { throw .length(bytes: key.count) }
        self.key = SymmetricKey(data: key)
    }

    public var description: String { "<webhook secret>" }

    /// `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
    public func signature(id: String, timestamp: Int, body: Data) -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let code = HMAC<SHA256>.authenticationCode(for: signed, using: key)
        return "v1," + Data(code).base64EncodedString()
    }
}
