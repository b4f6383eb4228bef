import Foundation

/// When a scheduled action happens, as written. Resolving it to a moment of the run needs the
/// run's start and the pipeline's time zone (the planner's `ShowTimeline`).
public enum ActionTime: Hashable, Sendable {
    /// `at: "18:00"` / `"18:00:30"`: a clock time in the pipeline's time zone.
    case clock(hour: Int, minute: Int, second: Int)
    /// `at: "2026-12-01T18:00:00+01:00"`: one instant.
    case instant(Date)
    /// `at: +5m`: this long after the run's start.
    case fromStart(milliseconds: Int)
    /// `after: 30s`: this long after the previous action (the run's start for the first).
    case afterPrevious(milliseconds: Int)
}

/// One item of a pipeline's `schedule:`: one action at one time.
public struct ActionSpec: Hashable, Sendable {
    /// What the action does.
    public enum Kind: Hashable, Sendable {
        /// Switch to an overlay combination.
        case overlay(Located<String>)
        /// Show a named layer, and hide it again `forMs` later when given.
        case show(Located<String>, forMs: Int?)
        /// Hide a named layer, and show it again `forMs` later when given.
        case hide(Located<String>, forMs: Int?)
        /// Play a clip in a source's place.
        case play(ClipSpec)
        /// Mute a source's picture, sound or both.
        case mute(MuteSpec)
        /// Unmute them.
        case unmute(MuteSpec)
        /// Start a destination.
        case start(Located<String>)
        /// Stop a destination.
        case stop(Located<String>)
        /// Set text variables.
        case set([TextAssignment])
        /// End the run.
        case end
    }

    /// When.
    public var time: Located<ActionTime>
    /// What.
    public var kind: Kind
    /// `name:`, for `{countdown:NAME}`.
    public var name: Located<String>?
    /// Where the item was written.
    public var location: SourceLocation

    /// Creates an action.
    public init(time: Located<ActionTime>, kind: Kind, name: Located<String>? = nil, location: SourceLocation) {
        self.time = time
        self.kind = kind
        self.name = name
        self.location = location
    }
}

/// `play: {clip: PATH, in: SOURCE, loop: false}`.
public struct ClipSpec: Hashable, Sendable {
    /// The video file.
    public var clip: AssetPath
    /// The source whose place it takes.
    public var source: Located<String>
    /// Whether it starts again at its end.
    public var loop: Bool

    /// Creates a clip.
    public init(clip: AssetPath, source: Located<String>, loop: Bool) {
        self.clip = clip
        self.source = source
        self.loop = loop
    }
}

/// `mute: SOURCE` or `mute: {source: SOURCE, video: true}`: which parts of a source.
public struct MuteSpec: Hashable, Sendable {
    /// The source.
    public var source: Located<String>
    /// Its picture (the slate is shown instead).
    public var video: Bool
    /// Its sound (silence instead).
    public var audio: Bool

    /// Creates a mute of `source`'s picture and/or sound.
    public init(source: Located<String>, video: Bool, audio: Bool) {
        self.source = source
        self.video = video
        self.audio = audio
    }
}

/// `set: {NAME: TEXT}`: one text variable.
public struct TextAssignment: Hashable, Sendable {
    /// The variable (`title`, or any name a text layer shows as `{NAME}`).
    public var variable: Located<String>
    /// Its new text.
    public var value: String

    /// Creates an assignment.
    public init(variable: Located<String>, value: String) {
        self.variable = variable
        self.value = value
    }
}

extension ActionSpec {
    /// The text variables `actions` set, which text layers may show as `{NAME}`.
    public static func variables(set actions: [ActionSpec]) -> Set<String> {
        var names = Set<String>()
        for action in actions {
            if case .set(let assignments) = action.kind { names.formUnion(assignments.map(\.variable.value)) }
        }
        return names
    }

    /// The keys that say what an action does; exactly one per action.
    static let actionKeys = ["overlay", "show", "hide", "play", "mute", "unmute", "start", "stop", "set", "end"]

    /// Decodes a `schedule:` list: each action, and each `- include: NAME` replaced by the
    /// actions of that preset schedule. `subject` names the list ("the schedule", "schedule
    /// 'intro'"); `including` holds the presets being taken in (to refuse a cycle).
    static func decodeList(_ items: [ConfigNode], subject: String, presets: PresetLibrary, including: [String] = [],
                           context: DecodingContext) -> [ActionSpec] {
        var actions: [ActionSpec] = []
        for (index, item) in items.enumerated() {
            let itemSubject = "action \(index + 1) of \(subject)"
            if let include = item["include"] {
                actions += decodeInclude(include, item: item, subject: itemSubject, presets: presets, including: including, context: context)
            } else if let action = ActionSpec(node: item, subject: itemSubject, context: context) {
                actions.append(action)
            }
        }
        return actions
    }

    /// `- include: NAME`: the preset schedule's actions, decoded as the preset's own (so a
    /// mistake in it is reported once, in the preset).
    private static func decodeInclude(_ include: ConfigNode, item: ConfigNode, subject: String, presets: PresetLibrary,
                                      including: [String], context: DecodingContext) -> [ActionSpec] {
        let log = context.log
        guard let reader = ObjectReader(item, ConfigSchema.action, subject: subject, context: context),
              let name = reader.reference("include") else { return [] }
        let others = (item.entries ?? []).map(\.key).filter { key in key != "include" && ConfigSchema.action.fields.contains { $0.name == key } }
        if !others.isEmpty {
            log.error("conflicting-keys", "\(subject) includes schedule '\(name.value)' and also has " + others.map { "'\($0):'" }.joined(separator: ", "),
                      at: item.location, suggestion: "write the included schedule's item on its own, and other actions as items of their own")
        }
        guard !including.contains(name.value) else {
            log.error("include-cycle", "schedule '\(name.value)' includes itself: " + (including + [name.value]).joined(separator: " → "),
                      at: name.location, suggestion: "a schedule can't include itself, directly or through others")
            return []
        }
        guard let preset = presets.entry(name.value, in: .schedules) else {
            log.error("unknown-reference", "unknown schedule '\(name.value)'", at: name.location,
                      suggestion: Suggestion.phrase(for: name.value, in: presets.names(in: .schedules)) ?? "define it under 'schedules:' in a file in Presets/")
            return []
        }
        return decodePreset(preset, presets: presets, including: including, context: context)
    }

    /// The actions of the preset schedule `preset` (a list).
    static func decodePreset(_ preset: PresetLibrary.Entry, presets: PresetLibrary, including: [String] = [],
                             context: DecodingContext) -> [ActionSpec] {
        guard case .sequence(let items) = preset.node.content else {
            context.log.error("wrong-type", "schedule '\(preset.name)' must be a list of actions, found \(preset.node.shapeName)",
                              at: preset.node.location, suggestion: "start each action with '- '")
            return []
        }
        return decodeList(items, subject: "schedule '\(preset.name)'", presets: presets, including: including + [preset.name], context: context)
    }

    /// Decodes one action: exactly one time (`at:` or `after:`) and exactly one thing to do.
    init?(node: ConfigNode, subject: String, context: DecodingContext) {
        guard let reader = ObjectReader(node, ConfigSchema.action, subject: subject, context: context) else { return nil }
        let time = Self.decodeTime(reader)
        let kind = Self.decodeKind(reader)
        if let forNode = reader["for"], !Self.isShowOrHide(kind) {
            context.log.error("misplaced-key", "'for' in \(subject) belongs to show: or hide:", at: forNode.location,
                              suggestion: "remove it, or write a separate action to undo this one")
        }
        let name = reader.text("name")
        if let name, !Self.isName(name.value) {
            context.log.error("bad-name", "'\(name.value)' is not a name \(subject) can have", at: name.location,
                              suggestion: "use letters, digits, - and _, starting with a letter")
        }
        guard let time, let kind else { return nil }
        self.init(time: time, kind: kind, name: name, location: node.location)
    }

    /// Whether `text` is a name layers and actions can have: it goes into filter instance names
    /// and `{countdown:NAME}`, so letters, digits, `-` and `_`, starting with a letter.
    public static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    private static func isShowOrHide(_ kind: Kind?) -> Bool {
        switch kind {
        case .show, .hide: true
        default: false
        }
    }

    /// `at:` or `after:`, exactly one.
    private static func decodeTime(_ reader: ObjectReader) -> Located<ActionTime>? {
        let written = ["at", "after"].filter { reader[$0] != nil }
        guard written.count == 1 else {
            reader.context.log.error(
                written.isEmpty ? "missing-key" : "conflicting-keys",
                written.isEmpty ? "\(reader.subject) has no time" : "\(reader.subject) has both 'at:' and 'after:'",
                at: reader.node.location,
                suggestion: written.isEmpty ? "add at: \"18:00\", at: +5m or after: 30s" : "keep one: an action has exactly one time")
            return nil
        }
        if written[0] == "after" {
            return reader.duration("after").map { Located(.afterPrevious(milliseconds: $0.value), at: $0.location) }
        }
        return reader.actionTime("at")
    }

    /// What the action does: exactly one of ``actionKeys``.
    private static func decodeKind(_ reader: ObjectReader) -> Kind? {
        let written = actionKeys.filter { reader[$0] != nil }
        guard written.count == 1 else {
            reader.context.log.error(
                written.isEmpty ? "missing-key" : "conflicting-keys",
                written.isEmpty ? "\(reader.subject) does nothing" : "\(reader.subject) has " + written.map { "'\($0):'" }.joined(separator: " and "),
                at: reader.node.location,
                suggestion: written.isEmpty ? "add one of " + actionKeys.map { "'\($0):'" }.joined(separator: ", ")
                    : "keep one: write each as an action of its own, with its own time")
            return nil
        }
        let forMs = reader.duration("for")?.value
        switch written[0] {
        case "overlay": return reader.reference("overlay").map(Kind.overlay)
        case "show": return reader.reference("show").map { .show($0, forMs: forMs) }
        case "hide": return reader.reference("hide").map { .hide($0, forMs: forMs) }
        case "play": return reader.object("play", ConfigSchema.clip, subject: "play of \(reader.subject)").flatMap(decodeClip)
        case "mute": return decodeMute(reader, key: "mute").map(Kind.mute)
        case "unmute": return decodeMute(reader, key: "unmute").map(Kind.unmute)
        case "start": return reader.reference("start").map(Kind.start)
        case "stop": return reader.reference("stop").map(Kind.stop)
        case "set": return decodeSet(reader)
        default:
            guard let end = reader.boolean("end") else { return nil }
            guard end.value else {
                reader.context.log.error("unknown-value", "'end: false' in \(reader.subject) does nothing", at: end.location,
                                         suggestion: "write end: true to end the run, or remove the action")
                return nil
            }
            return .end
        }
    }

    private static func decodeClip(_ reader: ObjectReader) -> Kind? {
        guard let path = reader.path("clip", mustExist: true), let source = reader.reference("in") else { return nil }
        if AssetKind.of(path) == .image {
            reader.context.log.error("wrong-media", "'\(path.written)' is an image; a clip is a video file", at: path.location,
                                     suggestion: "for a still picture use an image layer with a name, and show: it")
        }
        return .play(ClipSpec(clip: path, source: source, loop: reader.boolean("loop")?.value ?? false))
    }

    /// `mute: SOURCE` (picture and sound) or `mute: {source: SOURCE, video: BOOL, audio: BOOL}`.
    private static func decodeMute(_ reader: ObjectReader, key: String) -> MuteSpec? {
        guard let node = reader[key] else { return nil }
        if case .scalar = node.content { return reader.text(key).map { MuteSpec(source: $0, video: true, audio: true) } }
        guard let nested = reader.object(key, ConfigSchema.mute, subject: "\(key) of \(reader.subject)"),
              let source = nested.reference("source") else { return nil }
        let video = nested.boolean("video"), audio = nested.boolean("audio")
        if video == nil, audio == nil { return MuteSpec(source: source, video: true, audio: true) }
        guard video?.value == true || audio?.value == true else {
            reader.context.log.error("unknown-value", "\(key) of \(reader.subject) \(key)s neither picture nor sound", at: node.location,
                                     suggestion: "write video: true, audio: true, or just \(key): \(source.value) for both")
            return nil
        }
        return MuteSpec(source: source, video: video?.value ?? false, audio: audio?.value ?? false)
    }

    /// `set: {NAME: TEXT, ...}`.
    private static func decodeSet(_ reader: ObjectReader) -> Kind? {
        var assignments: [TextAssignment] = []
        let entries = reader.namedEntries("set")
        for entry in entries {
            guard let text = entry.value.scalar, !entry.value.isNull else {
                reader.context.log.error("wrong-type", "'\(entry.key)' in set of \(reader.subject) must be text, found \(entry.value.shapeName)",
                                         at: entry.value.location, suggestion: "write \(entry.key): \"…\" (quoted)")
                continue
            }
            guard isName(entry.key) else {
                reader.context.log.error("bad-name", "'\(entry.key)' is not a text variable's name", at: entry.keyLocation,
                                         suggestion: "use letters, digits, - and _, starting with a letter")
                continue
            }
            assignments.append(TextAssignment(variable: Located(entry.key, at: entry.keyLocation), value: text))
        }
        guard !assignments.isEmpty else {
            if entries.isEmpty {
                reader.context.log.error("missing-key", "set of \(reader.subject) sets nothing", at: reader.location(of: "set"),
                                         suggestion: "write set: {title: \"…\"}")
            }
            return nil
        }
        return .set(assignments)
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
