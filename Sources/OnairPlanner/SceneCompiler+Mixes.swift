import Foundation
import OnairConfig

/// Mixes (`mixes:`) as filters: each member's sound in one format (48 kHz stereo float), held
/// back (`adelay`), at its level (`volume`), placed (`pan`), dipped under another member
/// (`sidechaincompress`), then summed (`amix`, unnormalised: a member at 0 dB is heard at its
/// own level). A source or mix heard in several places is split once, one copy per use.
///
/// Muted sources and clips are handled before the graph (the engine's source directions), so
/// they work inside a mix as they do alone; a member written `mute: true` is at zero volume.
extension SceneCompiler {
    /// The pads that carry `sounds` (mixes or sources, each named once), compiled with every
    /// source and mix they hear: a source or mix heard in several of them is compiled once.
    mutating func mixSounds(_ sounds: [String]) -> [GraphPad] {
        var uses: [String: Int] = [:]
        var expanded: Set<String> = []
        for sound in sounds {
            uses[sound, default: 0] += 1
            if let mix = spec.mix(sound) { Self.countUses(in: mix, of: spec, into: &uses, expanded: &expanded) }
        }
        soundCopies = [:]
        return sounds.map { take($0, uses: uses) }
    }

    /// Counts the copies of each source's and mix's sound the members of `mix` take (one per
    /// member and one per ducking key), and those of the mixes it hears, each mix once.
    private static func countUses(in mix: MixSpec, of spec: PipelineSpec, into uses: inout [String: Int], expanded: inout Set<String>) {
        guard expanded.insert(mix.name).inserted else { return }  // counted already, or a cycle (refused by validation)
        for member in mix.members {
            let name = member.name.value
            uses[name, default: 0] += 1
            if let inner = spec.mix(name) { countUses(in: inner, of: spec, into: &uses, expanded: &expanded) }
            if let key = member.duck?.under.value { uses[key, default: 0] += 1 }
        }
    }

    private mutating func compileMix(_ mix: MixSpec, uses: [String: Int]) -> GraphPad {
        compiledMixes.append(PlannedMix(name: mix.name, members: mix.members.map { member in
            PlannedMix.Member(name: member.name.value, gainDB: member.gainDB, muted: member.muted,
                              target: LiveLevel.target(mix: mix.name, member: member.name.value))
        }))
        var pads: [GraphPad] = []
        for member in mix.members {
            var pad = chain([take(member.name.value, uses: uses)], Self.memberFilters(member, in: mix), "mixin")
            if let duck = member.duck {
                let key = chain([take(duck.under.value, uses: uses)], [Self.mixFormat(mix, purpose: "the key '\(duck.under.value)' ducks under")], "duckkey")
                pad = chain([pad, key], [Self.ducking(duck, of: member, in: mix)], "ducked")
            }
            pads.append(pad)
        }
        var sum = pads.first ?? .link("missing:\(mix.name)")
        if pads.count > 1 {
            sum = chain(pads, [Filter("amix", [FilterOption("inputs", String(pads.count)), FilterOption("normalize", "0"),
                                               FilterOption("dropout_transition", "0")],
                                      purpose: "mix '\(mix.name)': the sum of its sources", origin: mix.location)], "mix")
        }
        guard let loudness = mix.loudness, loudness.mode.value != .measure else { return sum }
        return chain([sum], Self.loudnessFilters(loudness, of: mix), "loud")
    }

    /// `normalize`: loudnorm in its one-pass (dynamic) mode, which reads 3 s ahead and works at
    /// 192 kHz (brought back to 48 kHz); `limit`: alimiter without its automatic level, peaks
    /// held under the ceiling with no delay.
    static func loudnessFilters(_ loudness: LoudnessSpec, of mix: MixSpec) -> [Filter] {
        let ceiling = FFmpegCommand.number(loudness.truePeak)
        switch loudness.mode.value {
        case .normalize:
            return [
                Filter("loudnorm", [FilterOption("I", FFmpegCommand.number(loudness.target)), FilterOption("TP", ceiling), FilterOption("LRA", "11")],
                       purpose: "mix '\(mix.name)': \(FFmpegCommand.number(loudness.target)) LUFS, peaks under \(ceiling) dBTP", origin: loudness.mode.location),
                Filter("aresample", [FilterOption(nil, "48000")], purpose: "mix '\(mix.name)': back from loudnorm's 192 kHz"),
            ]
        case .limit:
            let linear = ((pow(10, loudness.truePeak / 20)) * 10_000).rounded() / 10_000
            return [Filter("alimiter", [FilterOption("limit", FFmpegCommand.number(linear)), FilterOption("level", "0")],
                           purpose: "mix '\(mix.name)': peaks under \(ceiling) dBFS", origin: loudness.mode.location)]
        case .measure:
            return []
        }
    }

    /// The next copy of the sound of `name` (a source or a mix), split on first use.
    private mutating func take(_ name: String, uses: [String: Int]) -> GraphPad {
        if soundCopies[name] == nil {
            let pad: GraphPad
            if let inner = spec.mix(name) {
                pad = compileMix(inner, uses: uses)
            } else if let source = spec.source(name), source.hasAudio {
                pad = audioPad(source)
            } else {
                pad = .link("missing:\(name)")
            }
            soundCopies[name] = split(pad, into: uses[name] ?? 1, filter: "asplit", purpose: "one copy of '\(name)' per use in a mix", label: "sound")
        }
        guard var copies = soundCopies[name], !copies.isEmpty else { return .link("missing:\(name)") }
        let copy = copies.removeFirst()
        soundCopies[name] = copies
        return copy
    }

    /// One sound format for every member of a mix, so `amix` sums like with like.
    private static func mixFormat(_ mix: MixSpec, purpose: String) -> Filter {
        Filter("aformat", [FilterOption("sample_fmts", "fltp"), FilterOption("sample_rates", "48000"), FilterOption("channel_layouts", "stereo")],
               purpose: "mix '\(mix.name)': \(purpose) as 48 kHz stereo")
    }

    /// A member's format, delay, level and place.
    private static func memberFilters(_ member: MixMember, in mix: MixSpec) -> [Filter] {
        let name = member.name.value
        var filters = [mixFormat(mix, purpose: "'\(name)'")]
        if member.delayMs > 0 {
            filters.append(Filter("adelay", [FilterOption("delays", "\(member.delayMs)"), FilterOption("all", "1")],
                                  purpose: "mix '\(mix.name)': '\(name)' \(member.delayMs) ms later", origin: member.name.location))
        }
        // Every member has its volume, evaluated once a short frame, for the operator's live
        // changes to ramp in steps too small to click (see GainRamp).
        filters.append(Filter("asetnsamples", [FilterOption("n", String(LiveLevel.frameSamples)), FilterOption("p", "0")],
                              purpose: "mix '\(mix.name)': '\(name)' in short frames, for smooth live level changes"))
        let level = member.muted ? "0" : FFmpegCommand.number(member.gainDB) + "dB"
        var volume = Filter("volume", [FilterOption(nil, level), FilterOption("eval", "frame")],
                            purpose: "mix '\(mix.name)': '\(name)' " + (member.muted ? "muted" : "at \(level)"), origin: member.name.location)
        volume.instance = LiveLevel.instance(mix: mix.name, member: name)
        filters.append(volume)
        if member.pan != 0 {
            // A balance: the far side is turned down, the near side kept at its level.
            let left = member.pan > 0 ? 1 - member.pan : 1, right = member.pan < 0 ? 1 + member.pan : 1
            filters.append(Filter("pan", [FilterOption(nil, "stereo|c0=\(FFmpegCommand.number(left))*c0|c1=\(FFmpegCommand.number(right))*c1")],
                                  purpose: "mix '\(mix.name)': '\(name)' panned \(FFmpegCommand.number(member.pan))", origin: member.name.location))
        }
        return filters
    }

    /// `member` dipping by `duck.byDB` while the key is heard: the key compresses the member
    /// all but completely (ratio 20 from −60 dBFS) and `mix` blends the compressed sound with
    /// the dry one, so while the key is heard what is left is the dry share, 10^(−by/20), and
    /// while it is quiet the member is untouched.
    private static func ducking(_ duck: Ducking, of member: MixMember, in mix: MixSpec) -> Filter {
        let dry = pow(10, -duck.byDB / 20)
        return Filter("sidechaincompress", [
            FilterOption("threshold", "0.001"), FilterOption("ratio", "20"),
            FilterOption("attack", String(max(1, duck.attackMs))), FilterOption("release", String(max(1, duck.releaseMs))),
            FilterOption("mix", FFmpegCommand.number(((1 - dry) * 1000).rounded() / 1000)),
        ], purpose: "mix '\(mix.name)': '\(member.name.value)' dips \(FFmpegCommand.number(duck.byDB)) dB under '\(duck.under.value)'", origin: duck.under.location)
    }
}
