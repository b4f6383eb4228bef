/// A pad of a plan's filter graph: an input's pictures or sound, what feeds a rendition's
/// encoder, or a link between two chains. Written as ffmpeg's `-filter_complex` names them
/// (``label``): `2:v` for input 2's pictures, `a0` for rendition 0's sound, `scene`, `canvas2`.
public enum GraphPad: Hashable, Sendable, CustomStringConvertible {
    /// Pictures or sound.
    public enum Media: String, Hashable, Sendable {
        case video = "v"
        case audio = "a"
    }

    /// What the plan's input `index` delivers (`2:v`).
    case input(Int, Media)
    /// What the rendition `index` encodes (`v0`, `a0`).
    case rendition(Int, Media)
    /// The VOD track of rendition `index` (`vod0`): a second sound, encoded as its own is.
    case vodTrack(Int)
    /// Between two chains, named after what it carries (`scene`, `canvas2`, `logo`).
    case link(String)

    /// The label in filtergraph syntax (without brackets).
    public var label: String {
        switch self {
        case .input(let index, let media): "\(index):\(media.rawValue)"
        case .rendition(let index, let media): "\(media.rawValue)\(index)"
        case .vodTrack(let index): "vod\(index)"
        case .link(let name): name
        }
    }

    public var description: String { label }

    /// Pictures or sound for an input's or a rendition's pad; nil for a link.
    public var media: Media? {
        switch self {
        case .input(_, let media), .rendition(_, let media): media
        case .vodTrack: .audio
        case .link: nil
        }
    }

    /// The input whose pictures or sound this is, for an input's pad.
    public var input: Int? {
        if case .input(let index, _) = self { index } else { nil }
    }
}

extension GraphPad: Codable {
    /// A plan in JSON names pads by their labels, as the graph's text does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(label)
    }

    /// The pad a label written by ``encode(to:)`` names: `INDEX:v|a` an input's, `v|aINDEX` a
    /// rendition's, `vodINDEX` a VOD track's (no link is named so), anything else a link.
    public init(from decoder: any Decoder) throws {
        let label = try decoder.singleValueContainer().decode(String.self)
        if let colon = label.firstIndex(of: ":"), let index = Int(label[..<colon]),
           let media = Media(rawValue: String(label[label.index(after: colon)...])) {
            self = .input(index, media)
        } else if let media = label.first.flatMap({ Media(rawValue: String($0)) }), let index = Int(label.dropFirst()) {
            self = .rendition(index, media)
        } else if label.hasPrefix("vod"), let index = Int(label.dropFirst(3)) {
            self = .vodTrack(index)
        } else {
            self = .link(label)
        }
    }
}
