/// A named mix (`mixes:`): the sound of several sources (or other mixes), each at its own
/// level, place, delay and ducking, summed. `audio:` names the mix broadcast; `audio: SOURCE`
/// is the short form of a mix of that one source.
public struct MixSpec: Hashable, Sendable {
    /// The mix's name.
    public var name: String
    /// Where its name is written.
    public var location: SourceLocation
    /// What is heard in it, in the order written.
    public var members: [MixMember]
    /// How loud it is kept (nil: as the members sum).
    public var loudness: LoudnessSpec?
    /// Watched for dead air (nil: not watched).
    public var silence: SilenceAlert?

    /// Creates a mix.
    public init(name: String, location: SourceLocation, members: [MixMember], loudness: LoudnessSpec? = nil) {
        self.name = name
        self.location = location
        self.members = members
        self.loudness = loudness
    }

    /// The member called `name`.
    public func member(_ name: String) -> MixMember? { members.first { $0.name.value == name } }
}

/// Dead air (`silence:`): a mix whose loudest sample stays below `belowDB` for `afterMs`.
public struct SilenceAlert: Hashable, Sendable {
    /// The floor, dBFS.
    public var belowDB: Double
    /// How long the silence lasts before it is reported, ms.
    public var afterMs: Int

    /// Creates a dead-air watch (by default: below −50 dBFS for 10 s).
    public init(belowDB: Double = -50, afterMs: Int = 10_000) {
        self.belowDB = belowDB
        self.afterMs = afterMs
    }
}

/// How loud a mix is kept (`loudness:`).
public struct LoudnessSpec: Hashable, Sendable {
    /// What is done to the sound.
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        /// Peaks held under the ceiling (alimiter): no delay.
        case limit
        /// Loudness brought to the target and peaks under the ceiling (loudnorm): it reads
        /// about 3 s ahead, which the broadcast's delay grows by.
        case normalize
        /// Nothing done to the sound: metered and watched against the target and the ceiling.
        case measure
    }

    public var mode: Located<Mode>
    /// Integrated loudness aimed at by `normalize`, LUFS.
    public var target: Double
    /// The highest peak let through, dBTP: `audio.clipping` above it.
    public var truePeak: Double
    /// How far the loudness over ``windowMs`` may stray from the target before `audio.loudness`, LU.
    public var tolerance: Double
    /// The span the loudness compared with the target is measured over, ms.
    public var windowMs: Int

    /// Creates a loudness setting.
    public init(mode: Located<Mode>, target: Double = -14, truePeak: Double = -1, tolerance: Double = 2, windowMs: Int = 30_000) {
        self.mode = mode
        self.target = target
        self.truePeak = truePeak
        self.tolerance = tolerance
        self.windowMs = windowMs
    }
}

/// A source's (or a mix's) sound in a mix.
public struct MixMember: Hashable, Sendable {
    /// The source or mix heard.
    public var name: Located<String>
    /// Its level in the mix, dB.
    public var gainDB: Double = 0
    /// Left (−1) to right (1).
    public var pan: Double = 0
    /// Left out until unmuted.
    public var muted = false
    /// Held back this long to line the sound up with the pictures, ms.
    public var delayMs = 0
    /// How it dips under another member.
    public var duck: Ducking?

    /// Creates a member at 0 dB, centred, not delayed.
    public init(name: Located<String>) {
        self.name = name
    }
}

/// A member that dips while another member of the same mix is heard (music under a voice).
public struct Ducking: Hashable, Sendable {
    /// The member whose sound lowers this one.
    public var under: Located<String>
    /// How far it dips, dB.
    public var byDB: Double
    /// How fast it dips once `under` is heard, ms.
    public var attackMs: Int
    /// How fast it comes back once `under` is quiet, ms.
    public var releaseMs: Int

    /// Creates a ducking.
    public init(under: Located<String>, byDB: Double = 12, attackMs: Int = 50, releaseMs: Int = 400) {
        self.under = under
        self.byDB = byDB
        self.attackMs = attackMs
        self.releaseMs = releaseMs
    }
}

extension MixSpec {
    /// The longest dip and return a ducking can take (libavfilter's `sidechaincompress`), ms.
    static let maxAttackMs = 2000, maxReleaseMs = 9000

    /// Decodes `mixes:`, reporting every problem in a member's settings; references are
    /// checked by ``check(_:sources:audio:log:)`` once every source is known.
    static func decodeAll(_ entries: [ConfigNode.Entry], context: DecodingContext) -> [MixSpec] {
        entries.compactMap { entry in
            guard let reader = ObjectReader(entry.value, ConfigSchema.mix, subject: "mix '\(entry.key)'", context: context) else { return nil }
            let members = reader.namedEntries("sources").compactMap { member -> MixMember? in
                guard let settings = ObjectReader(member.value, ConfigSchema.mixSource, subject: "'\(member.key)' in mix '\(entry.key)'", context: context) else { return nil }
                var decoded = MixMember(name: Located(member.key, at: member.keyLocation))
                decoded.gainDB = settings.decibels("gain")?.value ?? 0
                decoded.pan = settings.number("pan")?.value ?? 0
                decoded.muted = settings.boolean("mute")?.value ?? false
                decoded.delayMs = settings.duration("delay")?.value ?? 0
                if let duck = settings.object("duck", ConfigSchema.ducking), let under = duck.reference("under") {
                    var ducking = Ducking(under: under)
                    ducking.byDB = duck.decibels("by")?.value ?? ducking.byDB
                    ducking.attackMs = duck.duration("attack")?.value ?? ducking.attackMs
                    ducking.releaseMs = duck.duration("release")?.value ?? ducking.releaseMs
                    decoded.duck = ducking
                }
                return decoded
            }
            if reader["sources"] != nil, members.isEmpty, reader.namedEntries("sources").isEmpty {
                context.log.error("mix-empty", "mix '\(entry.key)' has no sources", at: reader.location(of: "sources"),
                                  suggestion: "name the sources heard, e.g. sources: {presenter: {}, music: {gain: -12dB}}")
            }
            let loudness = reader.object("loudness", ConfigSchema.loudness).map { loudness in
                LoudnessSpec(mode: loudness.choice("mode", as: LoudnessSpec.Mode.self) ?? Located(.limit, at: reader.location(of: "loudness")),
                             target: loudness.number("target")?.value ?? -14, truePeak: loudness.number("true_peak")?.value ?? -1,
                             tolerance: loudness.number("tolerance")?.value ?? 2, windowMs: loudness.duration("window")?.value ?? 30_000)
            }
            var mix = MixSpec(name: entry.key, location: entry.keyLocation, members: members, loudness: loudness)
            if let silence = reader.object("silence", ConfigSchema.silenceAlert) {
                mix.silence = SilenceAlert(belowDB: silence.decibels("below")?.value ?? -50, afterMs: silence.duration("after")?.value ?? 10_000)
            }
            return mix
        }
    }

    /// Checks the mixes against the pipeline's sources: every member a source with sound or a
    /// mix, no mix inside itself, a ducking key in the same mix, no name both a source and a mix.
    static func check(_ mixes: [MixSpec], sources: [SourceSpec], latency: LatencyMode, log: DiagnosticLog) {
        let names = sources.map(\.name) + mixes.map(\.name)
        for mix in mixes {
            if latency == .low, let mode = mix.loudness?.mode, mode.value == .normalize {
                log.error("low-latency-loudness", "mix '\(mix.name)' is normalised, which holds about 3 s of sound, and the pipeline asks for latency: low", at: mode.location,
                          suggestion: "use mode: limit (peaks only, no delay), or leave latency: low out")
            }
            if sources.contains(where: { $0.name == mix.name }) {
                log.error("mix-name", "'\(mix.name)' is both a source and a mix", at: mix.location,
                          suggestion: "rename the mix, e.g. '\(mix.name)-mix'")
            }
            for member in mix.members {
                checkMember(member, of: mix, sources: sources, names: names, log: log)
            }
            if let path = cycle(from: mix.name, mixes: mixes, path: []) {
                log.error("mix-cycle", "mix '\(mix.name)' includes itself (" + path.joined(separator: " → ") + ")", at: mix.location,
                          suggestion: "a mix can include other mixes, but not one that includes it")
            }
        }
    }

    /// Checks what the pipeline's `audio:` and each destination's name: a mix or a source (one
    /// with sound, for a destination; the pipeline's own is checked where it is compiled).
    static func checkSounds(pipeline: Located<String>?, destinations: [DestinationSpec], mixes: [MixSpec], sources: [SourceSpec], log: DiagnosticLog) {
        let names = sources.map(\.name) + mixes.map(\.name)
        let written = (pipeline.map { [($0, "audio")] } ?? []) + destinations.flatMap { destination in
            [destination.audio.map { ($0, "audio of destination '\(destination.name)'") },
             destination.vodTrack.map { ($0, "vod_track of destination '\(destination.name)'") }].compactMap { $0 }
        }
        for (reference, role) in written {
            if !names.contains(reference.value) {
                log.error("unknown-reference", "unknown source\(mixes.isEmpty ? "" : " or mix") '\(reference.value)' (\(role))", at: reference.location,
                          suggestion: Suggestion.phrase(for: reference.value, in: names) ?? "define it under 'sources:' or 'mixes:'")
            } else if role != "audio", let source = sources.first(where: { $0.name == reference.value }), !source.hasAudio {
                log.error("no-audio", "source '\(source.name)' has no sound (\(role))", at: reference.location,
                          suggestion: "name a mix, or a source with sound")
            }
        }
    }

    private static func checkMember(_ member: MixMember, of mix: MixSpec, sources: [SourceSpec], names: [String], log: DiagnosticLog) {
        let name = member.name.value
        if !names.contains(name) {
            log.error("unknown-reference", "unknown source '\(name)' (in mix '\(mix.name)')", at: member.name.location,
                      suggestion: Suggestion.phrase(for: name, in: names) ?? "define it under 'sources:' or 'mixes:'")
        } else if let source = sources.first(where: { $0.name == name }), !source.hasAudio {
            log.error("no-audio", "source '\(name)' in mix '\(mix.name)' has no sound", at: member.name.location,
                      suggestion: "leave it out of the mix, or give it sound (a test source's tone:, a camera with a microphone)")
        }
        guard let duck = member.duck else { return }
        if duck.attackMs > maxAttackMs || duck.releaseMs > maxReleaseMs {
            log.error("out-of-range", "'\(name)' in mix '\(mix.name)' dips over \(Units.formatDuration(duck.attackMs)) and comes back over \(Units.formatDuration(duck.releaseMs)); the most is 2s and 9s",
                      at: duck.under.location, suggestion: "a voice's ducking is usually attack: 50ms, release: 400ms")
        }
        if duck.under.value == name {
            log.error("duck-self", "'\(name)' in mix '\(mix.name)' can't dip under itself", at: duck.under.location,
                      suggestion: "name the voice it dips under, e.g. under: presenter")
        } else if mix.member(duck.under.value) == nil {
            log.error("duck-key", "'\(name)' dips under '\(duck.under.value)', which is not in mix '\(mix.name)'", at: duck.under.location,
                      suggestion: Suggestion.phrase(for: duck.under.value, in: mix.members.map(\.name.value).filter { $0 != name })
                          ?? "add '\(duck.under.value)' to the mix's sources (muted, if it should not be heard)")
        }
    }

    /// The mixes from `name` back to itself, when it includes itself through its members.
    private static func cycle(from name: String, mixes: [MixSpec], path: [String]) -> [String]? {
        if path.first == name { return path + [name] }
        guard !path.contains(name), let mix = mixes.first(where: { $0.name == name }) else { return nil }
        for member in mix.members {
            if let found = cycle(from: member.name.value, mixes: mixes, path: path + [name]) {
                return found
            }
        }
        return nil
    }
}

extension PipelineSpec {
    /// The sources whose sound goes on air, given the pipeline's own sound `main` (a source or a
    /// mix): it, each destination's `audio:`, and every source the mixes among them hear, through
    /// the mixes they hear (muted members too: they can be unmuted on air).
    public func heardSources(main: String?) -> Set<String> {
        var heard = Set<String>(), seen = Set<String>()
        var pending = ([main] + destinations.flatMap { [$0.audio?.value, $0.vodTrack?.value] }).compactMap { $0 }
        while let name = pending.popLast() {
            guard seen.insert(name).inserted else { continue }
            if let mix = mix(name) { pending += mix.members.map(\.name.value) } else { heard.insert(name) }
        }
        return heard
    }
}
