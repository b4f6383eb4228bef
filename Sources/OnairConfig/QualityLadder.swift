/// `quality: {auto: [1080p30, 720p30]}`: quality presets from the best down, one of which a
/// destination streams with; `onair run` picks the first its measured link carries with room to
/// spare before anything goes live. Until then (in `plan`, `validate`) the first rung stands.
public struct QualityLadder: Hashable, Sendable {
    /// The rungs, best first, each located at its name in the list. Checked: at least one, all
    /// known, none twice, all of one aspect ratio, each sending less than the one before.
    public var rungs: [QualitySpec]
    /// Where the `quality:` value is written.
    public var location: SourceLocation

    /// The rung called `name`.
    public func rung(_ name: String) -> QualitySpec? { rungs.first { $0.presetName == name } }

    /// The rungs' preset names, best first.
    public var names: [String] { rungs.compactMap(\.presetName) }
}

/// What a `quality:` line chose: one quality, or a ladder whose first rung is the quality until
/// a measurement picks another.
public struct QualityChoice: Sendable {
    /// The quality streamed (a ladder's first rung).
    public var quality: QualitySpec
    /// The ladder, for `quality: {auto: [...]}`.
    public var ladder: QualityLadder?
}

extension QualitySpec {
    /// The most bits per second a destination receives with this quality: the video's cap for
    /// a variable bitrate, else its bitrate, plus the sound.
    public var sentBitrate: Int {
        video.peakBitrate.value + audio.bitrate.value
    }
}

extension PresetLibrary {
    /// Resolves a `quality:` value: a preset's name, an inline quality, or `{auto: [...]}`.
    public func qualityChoice(_ node: ConfigNode, context: DecodingContext) -> QualityChoice? {
        guard node.entries != nil, node["auto"] != nil else {
            return quality(node, context: context).map { QualityChoice(quality: $0, ladder: nil) }
        }
        guard let ladder = qualityLadder(node, context: context) else { return nil }
        return QualityChoice(quality: ladder.rungs[0], ladder: ladder)
    }

    /// Decodes and checks `{auto: [...]}`; nil (with every problem reported) when any rung is wrong.
    private func qualityLadder(_ node: ConfigNode, context: DecodingContext) -> QualityLadder? {
        let log = context.log
        guard let reader = ObjectReader(node, ConfigSchema.qualityLadder, subject: "quality ladder", context: context) else { return nil }
        let errorsBefore = log.errorCount
        let items = reader.items("auto")
        if errorsBefore == log.errorCount, items.isEmpty {
            log.error("empty-ladder", "quality: auto needs at least one quality preset to choose from", at: reader.location(of: "auto"),
                      suggestion: "list them from the best down, e.g. auto: [1080p30, 720p30]")
        }
        var rungs: [QualitySpec] = []
        for item in items {
            guard let name = item.scalar, !item.isNull else {
                log.error("wrong-type", "each rung of quality: auto is a quality preset's name, found \(item.shapeName)", at: item.location)
                continue
            }
            if rungs.contains(where: { $0.presetName == name }) {
                log.error("duplicate-rung", "'\(name)' is twice in the ladder", at: item.location, suggestion: "list each quality preset once")
                continue
            }
            guard let entry = entry(name, in: .quality) else {
                log.error("unknown-reference", "unknown quality preset '\(name)'", at: item.location,
                          suggestion: Suggestion.phrase(for: name, in: names(in: .quality)) ?? "define it under 'quality:' in a file in Presets/")
                continue
            }
            // A broken preset is reported by its own check.
            guard let rung = qualityPreset(entry, context: context)?.chosen(at: item.location) else { continue }
            if let top = rungs.first, rung.width.value * top.height.value != rung.height.value * top.width.value {
                log.error("ladder-canvas", "rung '\(name)' is \(rung.size) but '\(top.presetName ?? "")' before it is \(top.size): every rung must have one aspect ratio",
                          at: item.location, suggestion: "a destination's picture keeps its shape; make a separate destination for another aspect ratio")
            } else if let previous = rungs.last, rung.sentBitrate >= previous.sentBitrate {
                log.error("ladder-order", "rung '\(name)' (\(Units.formatBitrate(rung.sentBitrate))) can never be picked: '\(previous.presetName ?? "")' before it sends \(Units.formatBitrate(previous.sentBitrate))",
                          at: item.location, suggestion: "list the rungs from the highest bitrate down")
            }
            rungs.append(rung)
        }
        guard log.errorCount == errorsBefore, !rungs.isEmpty else { return nil }
        return QualityLadder(rungs: rungs, location: node.location)
    }
}
