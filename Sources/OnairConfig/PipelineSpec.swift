import Foundation

/// A named pipeline, decoded and with every preset reference resolved: what the planner compiles.
public struct PipelineSpec: Hashable, Sendable {
    /// False when some part failed to decode (and was reported): such a pipeline is checked
    /// but never compiled.
    public var isComplete: Bool
    /// The pipeline's name (its file name without `.yaml`).
    public var name: String
    /// The file it was read from, as diagnostics show it.
    public var file: String
    /// `{title}` in text layers.
    public var title: String
    /// Sources in the order written.
    public var sources: [SourceSpec]
    /// Overlay combinations in the order written.
    public var overlays: [OverlaySpec]
    /// The combination on air at start.
    public var active: Located<String>
    /// The sound broadcast: a mix or a source (nil: the active combination's lead source).
    public var audio: Located<String>?
    /// The named mixes, in the order written.
    public var mixes: [MixSpec] = []
    /// Layers drawn on top, bottom first.
    public var layers: [LayerSpec]
    /// The scene's quality (a ladder's first rung).
    public var quality: QualitySpec
    /// The ladder of `quality: {auto: [...]}` at the pipeline's level: each network destination
    /// without a quality or a canvas of its own streams with one of its rungs.
    public var ladder: QualityLadder?
    /// Destinations in the order written.
    public var destinations: [DestinationSpec]
    /// What viewers see when an input is lost.
    public var inputLoss: InputLossPolicy
    /// Where a run serves its HTTP API (nil: not written, 127.0.0.1 on a free port).
    public var http: HTTPSpec?
    /// The IANA time zone of the schedule's clock times (nil: the machine's).
    public var timeZone: Located<String>?
    /// The schedule's actions in written order, preset schedules taken in.
    public var schedule: [ActionSpec] = []
    /// Where alerts about the run's events go, in the order written.
    public var notify: [NotifySpec] = []
    /// How the pipeline trades efficiency for delay (`latency:`).
    public var latency: LatencyMode = .normal

    /// The named layer called `name`.
    public func layer(named name: String) -> LayerSpec? { layers.first { $0.name?.value == name } }
    /// The destination called `name`.
    public func destination(_ name: String) -> DestinationSpec? { destinations.first { $0.name == name } }

    /// The source called `name`.
    public func source(_ name: String) -> SourceSpec? { sources.first { $0.name == name } }
    /// The mix called `name`.
    public func mix(_ name: String) -> MixSpec? { mixes.first { $0.name == name } }
    /// The combination called `name`.
    public func overlay(_ name: String) -> OverlaySpec? { overlays.first { $0.name == name } }

    /// The quality ladder `destination` streams with: its own, or the pipeline's for a network
    /// destination without a quality or a canvas of its own; nil for a fixed quality.
    public func ladder(of destination: DestinationSpec) -> QualityLadder? {
        if let own = destination.ladder { return own }
        // A rung picked from the pipeline's ladder is the destination's quality from then on.
        guard destination.isNetwork, destination.quality == nil || destination.chosenRung != nil, destination.canvas == nil else { return nil }
        return ladder
    }

    /// The same pipeline with the rungs `choices` names (destination → quality preset) on air:
    /// each such destination streams with that rung and remembers it was picked. Names of
    /// destinations without a ladder, or of rungs not in theirs, are left out.
    public func choosingRungs(_ choices: [String: String]) -> PipelineSpec {
        var copy = self
        for index in copy.destinations.indices {
            let destination = copy.destinations[index]
            guard let name = choices[destination.name], let rung = ladder(of: destination)?.rung(name) else { continue }
            copy.destinations[index].quality = rung
            copy.destinations[index].chosenRung = name
        }
        return copy
    }

    /// The same pipeline with `destination` streaming `quality` instead of its own (or the
    /// scene's), its ladder set aside: how it would stream with another preset.
    public func replacingQuality(of destination: String, with quality: QualitySpec) -> PipelineSpec {
        var copy = self
        for index in copy.destinations.indices where copy.destinations[index].name == destination {
            copy.destinations[index].quality = quality
            copy.destinations[index].ladder = nil
            copy.destinations[index].chosenRung = nil
        }
        return copy
    }

    /// The same pipeline with the combination `name` on air instead of the one `active:` names
    /// (`onair run --overlay`); nil when it has no such combination. Diagnostics about the
    /// combination on air still point at `active:`.
    public func activating(_ name: String) -> PipelineSpec? {
        guard overlay(name) != nil else { return nil }
        var copy = self
        copy.active = Located(name, at: active.location)
        return copy
    }
}

extension PipelineSpec {
    /// Decodes a pipeline file, reporting every problem. Parts that fail to decode are left out
    /// (and `isComplete` is false) so platform rules can still check the rest; nil when not even
    /// the active combination and quality could be read.
    public static func decode(name: String, root: ConfigNode, presets: PresetLibrary, context: DecodingContext) -> PipelineSpec? {
        let log = context.log
        let errorsBefore = log.errorCount
        guard let reader = ObjectReader(root, ConfigSchema.pipeline, subject: "pipeline '\(name)'", context: context) else { return nil }

        let sourceEntries = reader.namedEntries("sources")
        var sources: [SourceSpec] = []
        for entry in sourceEntries {
            if let source = SourceSpec(entry: entry, context: context) { sources.append(source) }
        }
        let sourceNames = sourceEntries.map(\.key)
        func checkSource(_ reference: Located<String>, role: String) {
            guard !sourceNames.contains(reference.value) else { return }
            log.error("unknown-reference", "unknown source '\(reference.value)' (\(role))", at: reference.location,
                      suggestion: Suggestion.phrase(for: reference.value, in: sourceNames) ?? "define it under 'sources:'")
        }

        let overlayEntries = reader.namedEntries("overlays")
        let overlays = decodeOverlays(overlayEntries, presets: presets, context: context)
        for overlay in overlays {
            for reference in overlay.sourceReferences { checkSource(reference, role: "in overlay combination '\(overlay.name)'") }
        }
        let active = reader.reference("active")
        if let active, !overlayEntries.contains(where: { $0.key == active.value }) {
            log.error("unknown-reference", "unknown overlay combination '\(active.value)'", at: active.location,
                      suggestion: Suggestion.phrase(for: active.value, in: overlayEntries.map(\.key)) ?? "define it under 'overlays:'")
        }
        let mixes = MixSpec.decodeAll(reader.namedEntries("mixes"), context: context)
        let latency = reader.choice("latency", as: LatencyMode.self)?.value ?? .normal
        MixSpec.check(mixes, sources: sources, latency: latency, log: log)
        let audio = reader.reference("audio")

        let schedule = ActionSpec.decodeList(reader.items("schedule"), subject: "the schedule", presets: presets, context: context)
        let layers = decodeLayers(reader.items("layers"), variables: ActionSpec.variables(set: schedule), context: context)
        for layer in layers {
            if case .pip(let source, _) = layer.kind { checkSource(source, role: "picture-in-picture") }
        }
        let timeZone = decodeTimeZone(reader.text("timezone"), log: log)

        let qualityChoice = reader["quality"].flatMap { presets.qualityChoice($0, context: context) }
        let destinations = decodeDestinations(of: name, reader: reader, presets: presets, context: context)
        MixSpec.checkSounds(pipeline: audio, destinations: destinations, mixes: mixes, sources: sources, log: log)
        let inputLoss = InputLossPolicy.decode(reader["input_loss"], context: context)
        let http = reader["http"].flatMap { HTTPSpec.decode($0, pipeline: name, context: context) }
        if case .source(let reference) = inputLoss.slate { checkSource(reference, role: "slate") }
        for source in sources {
            for backup in source.failover?.backups ?? [] { checkSource(backup, role: "backup of '\(source.name)'") }
        }
        FailoverSpec.check(sources, inputLoss: inputLoss, log: log)

        guard let active, let quality = qualityChoice?.quality else { return nil }
        return PipelineSpec(
            isComplete: log.errorCount == errorsBefore,
            name: name, file: root.location.file, title: reader.text("title")?.value ?? name,
            sources: sources, overlays: overlays, active: active, audio: audio, mixes: mixes, layers: layers, quality: quality,
            ladder: qualityChoice?.ladder, destinations: destinations, inputLoss: inputLoss, http: http,
            timeZone: timeZone, schedule: schedule,
            notify: NotifySpec.decodeAll(reader.namedEntries("notify"), presets: presets, context: context),
            latency: latency)
    }

    /// `timezone:` as written; an unknown zone is an error (and still returned, located).
    private static func decodeTimeZone(_ timeZone: Located<String>?, log: DiagnosticLog) -> Located<String>? {
        if let timeZone, TimeZone(identifier: timeZone.value) == nil {
            log.error("unknown-value", "unknown time zone '\(timeZone.value)'", at: timeZone.location,
                      suggestion: Suggestion.phrase(for: timeZone.value, in: TimeZone.knownTimeZoneIdentifiers, listing: false)
                        ?? "write an IANA name such as Europe/Paris or America/New_York, or leave it out for the machine's")
        }
        return timeZone
    }

    /// The layers, each name given once; `variables` are the text variables the schedule sets.
    private static func decodeLayers(_ items: [ConfigNode], variables: Set<String>, context: DecodingContext) -> [LayerSpec] {
        var layers: [LayerSpec] = []
        for (index, item) in items.enumerated() {
            guard let layer = LayerSpec(node: item, index: index, variables: variables, context: context) else { continue }
            if let name = layer.name, let first = layers.first(where: { $0.name?.value == name.value }) {
                context.log.error("duplicate-name", "two layers are called '\(name.value)' (the other at \(first.location))", at: name.location,
                                  suggestion: "give each layer its own name")
            }
            layers.append(layer)
        }
        return layers
    }

    /// The overlay combinations, each after those it extends, in written order; those that fail
    /// to decode are left out.
    private static func decodeOverlays(_ entries: [ConfigNode.Entry], presets: PresetLibrary, context: DecodingContext) -> [OverlaySpec] {
        let siblings = Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        var decoded = [OverlaySpec?](repeating: nil, count: entries.count)
        for index in presets.siblingCheckOrder(entries, in: .overlays, siblings: siblings) {
            let entry = entries[index]
            let id = PresetLibrary.PresetID(section: .overlays, name: entry.key, pipelineFile: entry.value.location.file)
            decoded[index] = presets.decode(entry.value, in: .overlays, ownName: entry.key, siblings: siblings, checking: id, context: context) {
                OverlaySpec(name: entry.key, node: $0, location: entry.keyLocation, context: context)
            }
        }
        return decoded.compactMap { $0 }
    }

    /// The destinations of the pipeline `name` (with its `retry:` as their default), and an
    /// error when `destinations:` is written empty.
    private static func decodeDestinations(of name: String, reader: ObjectReader, presets: PresetLibrary, context: DecodingContext) -> [DestinationSpec] {
        let defaultRetry = reader["retry"].map { RetryPolicy.decode($0, subject: "pipeline '\(name)'", base: .standard, context: context) } ?? .standard
        let entries = reader.namedEntries("destinations")
        let destinations = entries.compactMap { entry in
            presets.decode(entry.value, in: .destinations, ownName: entry.key, siblings: [:], context: context, with: {
                DestinationSpec(name: entry.key, node: $0, location: entry.keyLocation, defaultRetry: defaultRetry, presets: presets, context: context)
            })
        }
        if reader["destinations"] != nil, entries.isEmpty {
            context.log.error("no-destinations", "pipeline '\(name)' has no destinations", at: reader.location(of: "destinations"),
                              suggestion: "add one, e.g. archive: {kind: record, path: ../recordings/\(name).mkv}")
        }
        return destinations
    }
}
