import Foundation

/// How the sound is pitched while a scene-avatar combination is on air: `voice: deep`,
/// `voice: {preset: high}` or `voice: {pitch: -4}` (semitones).
public struct VoiceSpec: Hashable, Sendable {
    /// The shift in semitones (negative is lower), −12…12.
    public var semitones: Double
    /// The preset it came from, when it came from one.
    public var preset: String?
    /// Where it was written.
    public var location: SourceLocation

    /// The named voices: `deep` is five semitones down (a low, dark voice), `high` five up (a
    /// light, cartoon-like one). Five keeps speech intelligible; a whole octave does not.
    public static let presets: [(key: String, value: Double)] = [("deep", -5), ("high", 5)]

    /// The semitones a pitch may move: an octave either way.
    public static let range: ClosedRange<Double> = -12...12

    /// Creates a voice.
    public init(semitones: Double, preset: String? = nil, location: SourceLocation) {
        self.semitones = semitones
        self.preset = preset
        self.location = location
    }

    /// The frequency factor (440 Hz at −4 semitones → 440 × 2^(−4/12) ≈ 349 Hz).
    public var pitchRatio: Double { pow(2, semitones / 12) }

    /// Decodes `node`: a preset's name, or a mapping with exactly one of `pitch:` and `preset:`.
    init?(node: ConfigNode, subject: String, context: DecodingContext) {
        if let word = node.scalar {
            guard let found = Self.preset(word, at: node.location, context: context) else { return nil }
            self = found
            return
        }
        guard let reader = ObjectReader(node, ConfigSchema.voice, subject: "voice of \(subject)", context: context) else { return nil }
        let written = ["pitch", "preset"].filter { reader[$0] != nil }
        guard written.count == 1 else {
            context.log.error(written.isEmpty ? "missing-key" : "conflicting-keys",
                              written.isEmpty ? "voice of \(subject) needs 'pitch:' (semitones) or 'preset:'"
                                  : "voice of \(subject) has both 'pitch:' and 'preset:'",
                              at: node.location, suggestion: "keep exactly one, e.g. {pitch: -4} or {preset: deep}")
            return nil
        }
        if let pitch = reader.number("pitch") {
            self = VoiceSpec(semitones: pitch.value, location: pitch.location)
        } else if let name = reader.choice("preset"), let found = Self.preset(name.value, at: name.location, context: context) {
            self = found
        } else {
            return nil
        }
    }

    /// The preset `name`, or a located error naming the presets there are.
    private static func preset(_ name: String, at location: SourceLocation, context: DecodingContext) -> VoiceSpec? {
        guard let semitones = presets.first(where: { $0.key == name })?.value else {
            let names = presets.map { $0.key }
            context.log.error("unknown-value", "unknown voice preset '\(name)'", at: location,
                              suggestion: Suggestion.phrase(for: name, in: names))
            return nil
        }
        return VoiceSpec(semitones: semitones, preset: name, location: location)
    }
}
