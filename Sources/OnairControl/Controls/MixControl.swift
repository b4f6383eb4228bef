import Foundation

/// The limits of a level changed on air: the same as a mix member's `gain:` in a pipeline.
public enum MixLevels {
    /// The gains a member may be given, dB.
    public static let gainRange: ClosedRange<Double> = -60...20
}

/// Why a change to a mix or to a destination's sound was refused; what is on air stays on air.
public enum MixControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pipeline has no mix of that name; `suggestion` is a "did you mean" phrase.
    case unknownMix(name: String, suggestion: String?)
    /// The mix has no such member.
    case unknownMember(mix: String, name: String, suggestion: String?)
    /// The pipeline has no destination of that name.
    case unknownDestination(name: String, suggestion: String?)
    /// A gain outside ``MixLevels/gainRange``.
    case outOfRange(gainDB: Double)
    /// The run can't take it now (it is stopping), or the destination's sound can't be told
    /// apart from another's.
    case refused(reason: String)

    public var description: String {
        switch self {
        case .unknownMix(let name, let suggestion): "no mix '\(name)'" + (suggestion.map { "; \($0)" } ?? "")
        case .unknownMember(let mix, let name, let suggestion): "no source '\(name)' in mix '\(mix)'" + (suggestion.map { "; \($0)" } ?? "")
        case .unknownDestination(let name, let suggestion): "no destination '\(name)'" + (suggestion.map { "; \($0)" } ?? "")
        case .outOfRange(let gain):
            "gain \(gain) dB is out of range: from \(Int(MixLevels.gainRange.lowerBound)) to \(Int(MixLevels.gainRange.upperBound)) dB"
        case .refused(let reason): reason
        }
    }
}

/// A mix as it sounds now: each member's level, as the pipeline set it or an operator changed it.
public struct MixStatus: Codable, Equatable, Sendable {
    /// A member of the mix.
    public struct Member: Codable, Equatable, Sendable {
        /// The source (or mix) heard.
        public var name: String
        /// Its level, dB.
        public var gainDB: Double
        /// Left out of this mix (the same source elsewhere is heard).
        public var muted: Bool
        /// Where on the media timeline the last change began to ramp in (µs): where the mix's
        /// sound had reached when it was taken; nil while it is as the pipeline set it.
        public var changedAt: MediaInstant?

        /// A member's state.
        public init(name: String, gainDB: Double, muted: Bool, changedAt: MediaInstant? = nil) {
            self.name = name
            self.gainDB = gainDB
            self.muted = muted
            self.changedAt = changedAt
        }

        private enum CodingKeys: String, CodingKey {
            case name, gainDB = "gain_db", muted, changedAtMs = "changed_at_ms"
        }

        /// Decodes what ``encode(to:)`` writes.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(name: try container.decode(String.self, forKey: .name), gainDB: try container.decode(Double.self, forKey: .gainDB),
                      muted: try container.decode(Bool.self, forKey: .muted),
                      changedAt: try container.decodeIfPresent(Int64.self, forKey: .changedAtMs).map { $0 * 1000 })
        }

        /// `changed_at` as whole milliseconds (`changed_at_ms`), left out when nil.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(gainDB, forKey: .gainDB)
            try container.encode(muted, forKey: .muted)
            try container.encodeIfPresent(changedAt.map { $0 / 1000 }, forKey: .changedAtMs)
        }
    }

    /// The mix's name.
    public var name: String
    /// Its members, in the order the pipeline writes them.
    public var members: [Member]

    /// A mix's state.
    public init(name: String, members: [Member]) {
        self.name = name
        self.members = members
    }
}
