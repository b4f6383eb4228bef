import Foundation
import OnairConfig
import OnairEncoding

/// The ffmpeg command line equivalent to a plan — for people who want to see or run what onair
/// does, and for the benchmark that compares the two. Stream keys never appear: a key becomes
/// a shell expansion (`${YOUTUBE_STREAM_KEY}`) that the shell fills at run time.
public struct FFmpegCommand: Sendable {
    /// Rendering choices.
    public struct Options: Sendable {
        /// Prefix for project-relative paths (the project folder as seen from where ffmpeg runs).
        public var pathBase: String = ""
        /// Read files and synthetic sources at real time (`-re`).
        public var pacing = true
        /// Stop after this many seconds (`-t`).
        public var durationSeconds: Double?
        /// Overwrite outputs without asking (`-y`).
        public var overwrite = true
        /// Encode everything but write nothing (`-f null -` per rendition): measures the work
        /// without disks or networks, for benchmarks.
        public var nullOutputs = false

        /// Defaults: paced, unbounded, paths as in the plan.
        public init() {}
    }

    /// The arguments, `ffmpeg` first. Arguments holding a key reference are marked so the shell
    /// rendering can leave their `${…}` expansion unquoted.
    public private(set) var arguments: [Argument] = []

    /// Where the command differs from what onair does (an adaptive rendition's bitrate), shown as
    /// comment lines above it.
    public private(set) var notes: [String] = []

    /// One argument.
    public struct Argument: Equatable, Sendable {
        /// The text.
        public var text: String
        /// True when `text` holds a `${VAR}`/`$(cat …)` key expansion meant for the shell.
        public var expandsKey: Bool
    }

    /// Builds the command for `plan`.
    public init(plan: PipelinePlan, options: Options = Options()) {
        notes = Self.notes(for: plan)
        add(["ffmpeg", "-hide_banner", "-nostdin"] + (options.overwrite ? ["-y"] : []))
        add(Self.inputs(of: plan, options: options))
        // The combination's voice pitches each rendition's sound after the graph, as the engine does.
        let voiced = plan.voice.map { voice in
            plan.renditions.compactMap(\.audioPad).map { "[\($0)]\(PlannedVoice.rubberband(pitch: voice.pitchRatio))[\($0)_voice]" }
        } ?? []
        add(["-filter_complex", ([plan.graph.resolvingPaths(from: options.pathBase).description()] + voiced).joined(separator: ";")])
        for rendition in plan.renditions {
            let outputs = plan.outputs.filter { $0.rendition == rendition.id }
            guard !outputs.isEmpty else { continue }
            add(["-map", "[\(rendition.videoPad)]"])
            if let audioPad = rendition.audioPad { add(["-map", plan.voice == nil ? "[\(audioPad)]" : "[\(audioPad)_voice]"]) }
            add(Self.encoding(rendition.encoderOptions))
            if let seconds = options.durationSeconds { add(["-t", Self.number(seconds)]) }
            arguments += Self.writing(outputs, options: options)
            if let track = rendition.vodTrack, let audio = rendition.encoderOptions.audio {
                // The CLI's FLV muxer takes one audio stream: the VOD track is encoded, not sent.
                add(["-map", "[\(track.pad)]"] + Self.encoding(audio) + ["-f", "null", "-"])
            }
        }
    }

    /// Appends `words`, none of which holds a key.
    private mutating func add(_ words: [String]) {
        arguments += words.map { Argument(text: $0, expandsKey: false) }
    }

    /// The inputs the graph reads, each with how it is opened. Backups come last and are never
    /// read by the graph: ffmpeg can't cut to them (and would wait for a listening backup's
    /// camera), so the command leaves them out.
    static func inputs(of plan: PipelinePlan, options: Options) -> [String] {
        let backups = Set(plan.failover.flatMap(\.backups))
        var words: [String] = []
        for input in plan.inputs where !backups.contains(input.index) {
            switch input.kind {
            case .lavfi(let graph):
                words += (options.pacing ? ["-re"] : []) + ["-f", "lavfi", "-i", graph]
            case .file(let file, let loop, let still):
                if options.pacing { words.append("-re") }
                if still {
                    for option in input.options { words += ["-\(option.key)", option.value] }
                } else if loop {
                    words += ["-stream_loop", "-1"]
                }
                words += ["-i", path(file, from: options.pathBase)]
            case .network(let url), .listen(let url):
                // The planner put the protocol's options (timeouts; `listen 1` or `mode listener`) on the input.
                for option in input.options + (input.decoderOptions ?? []) { words += ["-\(option.key)", option.value] }
                words += ["-i", url]
            case .device(let device, let format):
                for option in input.decoderOptions ?? [] { words += ["-\(option.key)", option.value] }
                words += ["-f", format, "-i", device]
            }
        }
        return words
    }

    /// Where one encode goes: its one output, or several through the tee muxer (optional
    /// outputs may fail alone); nowhere with `nullOutputs`.
    static func writing(_ outputs: [PlannedOutput], options: Options) -> [Argument] {
        func words(_ words: String...) -> [Argument] { words.map { Argument(text: $0, expandsKey: false) } }
        func path(_ value: String) -> String { Self.path(value, from: options.pathBase) }
        if options.nullOutputs { return words("-f", "null", "-") }
        if outputs.count == 1 {
            let output = outputs[0]
            return words("-f", output.format) + output.options.flatMap { words("-\($0.key)", $0.isPath ? path($0.value) : $0.value) }
                + [target(output, path: path)]
        }
        var expands = false
        let slaves = outputs.map { output -> String in
            var settings = ["f=\(output.format)"]
            settings += output.options.map { "\($0.key)=\(teeOptionValue($0.isPath ? path($0.value) : $0.value))" }
            if !output.required { settings.append("onfail=ignore") }
            let target = target(output, path: path, escape: teeTarget)
            expands = expands || target.expandsKey
            return "[" + settings.joined(separator: ":") + "]" + target.text
        }
        return words("-flags:v", "+global_header", "-flags:a", "+global_header", "-f", "tee")
            + [Argument(text: slaves.joined(separator: "|"), expandsKey: expands)]
    }

    /// A rendition's encoders as ffmpeg's options: the codec context's fields as its generic
    /// options, the encoder's own options as `-NAME:v` in their order (profile and level are
    /// also options of audio encoders: `:v` keeps them to the pictures).
    static func encoding(_ options: EncoderOptions) -> [String] {
        let video = options.video
        var words = ["-c:v", video.encoder, "-b:v", Units.formatBitrate(video.bitrate), "-maxrate", Units.formatBitrate(video.maxBitrate),
                     "-bufsize", Units.formatBitrate(video.bufferSize), "-g", String(video.gopFrames), "-keyint_min", String(video.gopFrames),
                     "-pix_fmt", video.pixelFormat]
        for option in video.options { words += ["-\(option.name):v", option.value] }
        if let audio = options.audio { words += encoding(audio) }
        return words
    }

    /// How one sound encoder is opened (a rendition's sound, or its VOD track).
    static func encoding(_ audio: AudioEncoderOptions) -> [String] {
        ["-c:a", audio.encoder, "-b:a", Units.formatBitrate(audio.bitrate), "-ar", String(audio.sampleRate), "-ac", String(audio.channels)]
    }

    /// What the command can't do as onair does: an adaptive rendition's bitrate changes while
    /// onair streams (the command encodes with the same x264 settings at the planned bitrate);
    /// a VOD track goes nowhere.
    static func notes(for plan: PipelinePlan) -> [String] {
        plan.renditions.compactMap(adaptiveNote) + plan.renditions.compactMap { rendition in
            rendition.vodTrack.map { track in
                "rendition \(rendition.id) (\(rendition.destinations.joined(separator: ", "))) sends '\(track.sound)' as Twitch's VOD track: "
                    + "the ffmpeg CLI can't (its FLV muxer takes one audio stream), so this command encodes it and throws it away"
            }
        }
    }

    private static func adaptiveNote(_ rendition: Rendition) -> String? {
        guard let adaptive = rendition.video.adaptive else { return nil }
        return "rendition \(rendition.id) (\(rendition.destinations.joined(separator: ", "))) is adaptive: onair lowers its bitrate "
                + "down to \(Units.formatBitrate(adaptive.minBitrate)) while a link can't carry it; this command keeps "
                + "\(Units.formatBitrate(rendition.video.bitrate)) throughout, with onair's x264 settings for a bitrate that may change "
                + "(no NAL HRD signalling, no filler)"
    }

    /// A slave's target as the tee muxer's tokenizer (`av_get_token`) must see it: quotes,
    /// backslashes and the slave separator escaped.
    static func teeTarget(_ value: String) -> String {
        FilterEscaping.escape(value, specials: "\\'|[")
    }

    /// A slave option's value: unescaped twice, when the slaves are split and then when the
    /// slave's options are, so its specials (those separators too) are escaped twice.
    static func teeOptionValue(_ value: String) -> String {
        let specials = "\\'|[]:="
        return FilterEscaping.escape(FilterEscaping.escape(value, specials: specials), specials: specials)
    }

    /// Where an output goes; `escape` applies to the target itself, not to a key's shell expansion.
    static func target(_ output: PlannedOutput, path: (String) -> String, escape: (String) -> String = { $0 }) -> Argument {
        switch output.kind {
        case .recording, .hls: return Argument(text: escape(path(output.target)), expandsKey: false)
        case .rtmp, .srt:
            let url = escape(output.target)
            guard let key = output.key, url.contains(PlannedOutput.keyPlaceholder) else { return Argument(text: url, expandsKey: false) }
            let expansion: String
            switch key {
            case .environment(let name): expansion = "${\(name)}"
            case .file(let file):
                // A key file's path is project-relative like every other path of the plan.
                let path = path(file)
                expansion = "$(head -n1 \(path.hasPrefix("~") ? path : quoted(path)))"
            }
            return Argument(text: PlannedOutput.inserting(key: expansion, into: url), expandsKey: true)
        }
    }

    /// A project-relative `value` as read from the folder `base`; as written when `base` is empty
    /// or `value` is absolute or in a home folder (`~`).
    static func path(_ value: String, from base: String) -> String {
        guard !base.isEmpty, !value.hasPrefix("/"), !value.hasPrefix("~") else { return value }
        return (base.hasSuffix("/") ? base : base + "/") + value
    }

    /// A 0xRRGGBB colour as FFmpeg writes it (`0x00FF00`), without Foundation's `String(format:)`,
    /// which is slow enough to show when every combination of a thousand pipelines is planned.
    static func color(_ value: Int) -> String {
        let digits = String(value & 0xFF_FFFF, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// A number as ffmpeg options and filter arguments take it: whole numbers without ".0".
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The command as one shell line (`multiline`: one option per line with `\` continuations).
    public func shell(multiline: Bool = false) -> String {
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            var word = argument.expandsKey ? Self.doubleQuoted(argument.text) : Self.quoted(argument.text)
            // Keep an option and its value on one line.
            if argument.text.hasPrefix("-"), index + 1 < arguments.count, !arguments[index + 1].text.hasPrefix("-") || Double(arguments[index + 1].text) != nil,
               index > 0 {
                let next = arguments[index + 1]
                word += " " + (next.expandsKey ? Self.doubleQuoted(next.text) : Self.quoted(next.text))
                index += 1
            }
            words.append(word)
            index += 1
        }
        let comments = notes.map { "# note: " + $0 + "\n" }.joined()
        return comments + words.joined(separator: multiline ? " \\\n  " : " ")
    }

    /// Single-quotes a word for POSIX shells when needed.
    static func quoted(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=+,@%".contains($0) } && !word.isEmpty
        return safe ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Double-quotes a word whose `${VAR}` / `$(…)` must expand, escaping everything else.
    static func doubleQuoted(_ word: String) -> String {
        var out = "\""
        var rest = Substring(word)
        while !rest.isEmpty {
            if rest.hasPrefix("${"), let close = rest.firstIndex(of: "}") {
                out += rest[...close]
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("$("), let close = rest.firstIndex(of: ")") {
                out += rest[...close]
                rest = rest[rest.index(after: close)...]
            } else {
                let character = rest.removeFirst()
                if "\"\\`$".contains(character) { out.append("\\") }
                out.append(character)
            }
        }
        return out + "\""
    }
}
