import Foundation

/// One line of the `--log-format json` log: something that happened during a run, or the
/// periodic statistics.
///
/// ```
/// {"ts":"2025-01-01T12:00:00.000Z","event":"destination.live","destination":"youtube","state":"live","url":"rtmp://…/{key}"}
/// {"ts":"2025-01-01T12:00:05.000Z","event":"stats","destinations":[…],"elapsed_ms":5000,"renditions":[…]}
/// ```
///
/// Every event has a dot-separated name (``EventName``, the one list of them: `input.connected`,
/// `destination.live`, `schedule.fired`…). Every string passes through the engine's redaction
/// before it is written.
public struct StatusEvent: Equatable, Sendable {
    /// What happened.
    public enum Kind: Equatable, Sendable {
        /// An input opened; `url` is its address, when it has one. `label`, in each input's
        /// event, tells it from the run's other inputs (nil: its name; see ``InputStatus/label``).
        case inputConnected(input: String, url: String?, label: String? = nil)
        /// A listening or network input is not delivering yet.
        case inputWaiting(input: String, reason: String, label: String? = nil)
        /// An input stopped delivering (a live one is covered by its last frame, then the slate).
        case inputLost(input: String, reason: String, label: String? = nil)
        /// A local input could not be read: the run can't go on.
        case inputFailed(input: String, reason: String, label: String? = nil)
        /// `to` went on air in the place of `input` (fed until now by `from`: `input` itself or
        /// another backup) because `from` failed with `reason` (`loss`, `black`, `silence`), or
        /// (`clean`) because `to` ranks above `from` and has come back clean.
        case inputFailover(input: String, from: String, to: String, reason: String)
        /// `input` is back on air in its own place, after `from` stood in for it.
        case inputRestored(input: String, from: String)
        /// A warning or error from libav.
        case libav(level: String, message: String)
        /// An overlay (a layer or a combination) was put on air.
        case overlayApplied(overlay: String)
        /// The combination on air failed while running (`reason`): `fallback`, its camera as it
        /// is with the layers, went on air in its place, and the combination is retried.
        case overlayFailed(overlay: String, reason: String, fallback: String)
        /// A failed combination works again and is back on air, after `attempts` retries (the
        /// end of its fallback; no `overlay.applied` comes with it).
        case overlayRestored(overlay: String, attempts: Int)
        /// A destination entered `state`; `url` is its address with the key as a placeholder.
        case destinationChanged(destination: String, url: String?, state: DestinationState)
        /// A destination can't keep up with its rendition: `queueMilliseconds` of media wait while
        /// it sends `bitsPerSecond`; `followed` when its rendition's bitrate follows it (an
        /// optional destination is left to drop GOPs instead). Once per congestion.
        case destinationCongested(destination: String, queueMilliseconds: Int, bitsPerSecond: Int, followed: Bool)
        /// An adaptive rendition's video bitrate changed (`from` = `to` when only who steers it
        /// did: an operator handed it back to adaptive bitrate), why, and `by` whom.
        case bitrateChanged(rendition: String, from: Int, to: Int, reason: String, by: BitrateAuthor)
        /// `source`'s picture (`video`) and/or sound (`audio`) was muted (`muted`) or unmuted, from
        /// media time `at` on (the output frame it lands on).
        case sourceMuted(source: String, video: Bool, audio: Bool, muted: Bool, at: MediaInstant)
        /// `clip` goes on air in `source`'s place at media time `at` (`loop`: again and again).
        case clipStarted(source: String, clip: String, loop: Bool, at: MediaInstant)
        /// `clip` left `source`'s place at media time `at`, and the source is back: `reason` is
        /// `ended` (the file ended) or `replaced` (another action on the source).
        case clipEnded(source: String, clip: String, at: MediaInstant, reason: String)
        /// The mix `mix`, watched for dead air, went silent (`silent`: below `belowDB` dBFS
        /// from media time `at` for the time it is watched over) or is heard again from `at`.
        case silence(mix: String, silent: Bool, at: MediaInstant, belowDB: Double)
        /// A mix's meter raised or cleared a loudness alert (clipping, or loudness off target).
        case loudness(LoudnessAlert)
        /// The periodic snapshot of the whole run.
        case stats(RunStatus)
        /// The run started: the pipeline, its inputs, the combination on air, its encoders and
        /// destinations, and where its HTTP API (and dashboard) listens, when it has one.
        case runStarted(pipeline: String, inputs: Int, overlay: String, renditions: Int, destinations: [String], api: String? = nil)
        /// Something the operator should know that is not an event of the engine (a refused
        /// overlay switch, a stop request).
        case runNote(message: String)
        /// The run ended.
        case runStopped(reason: String)
        /// A scheduled action fired, was skipped, or was cancelled.
        case schedule(ScheduleEvent)
    }

    /// When it happened.
    public var time: Date
    /// What happened.
    public var kind: Kind

    /// An event of `kind` at `time` (now by default).
    public init(_ kind: Kind, at time: Date = Date()) {
        self.kind = kind
        self.time = time
    }

    /// What the event is called (``EventName``).
    public var eventName: EventName {
        switch kind {
        case .inputConnected: .inputConnected
        case .inputWaiting: .inputWaiting
        case .inputLost: .inputLost
        case .inputFailed: .inputFailed
        case .inputFailover: .inputFailover
        case .inputRestored: .inputRestored
        case .libav: .libavLog
        case .overlayApplied: .overlayApplied
        case .overlayFailed: .overlayFailed
        case .overlayRestored: .overlayRestored
        case .destinationChanged(_, _, let state): .destination(state)
        case .destinationCongested: .destinationCongested
        case .bitrateChanged: .bitrateChanged
        case .sourceMuted(_, _, _, let muted, _): muted ? .sourceMuted : .sourceUnmuted
        case .clipStarted: .sourceClip
        case .clipEnded: .sourceClipEnded
        case .silence(_, let silent, _, _): silent ? .audioSilent : .audioSilenceEnded
        case .loudness(let alert): alert.name
        case .stats: .stats
        case .runStarted: .runStarted
        case .runNote: .runNote
        case .runStopped: .runStopped
        case .schedule(let action): action.outcome.eventName
        }
    }

    /// The dot-separated event name (`destination.retrying`).
    public var name: String { eventName.rawValue }

    /// The same event with every string it carries passed through `redact`.
    public func redacted(_ redact: (String) -> String) -> StatusEvent {
        let kind: Kind =
            switch self.kind {
            case .inputConnected(let input, let url, let label): .inputConnected(input: redact(input), url: url.map(redact), label: label.map(redact))
            case .inputWaiting(let input, let reason, let label): .inputWaiting(input: redact(input), reason: redact(reason), label: label.map(redact))
            case .inputLost(let input, let reason, let label): .inputLost(input: redact(input), reason: redact(reason), label: label.map(redact))
            case .inputFailed(let input, let reason, let label): .inputFailed(input: redact(input), reason: redact(reason), label: label.map(redact))
            case .inputFailover(let input, let from, let to, let reason):
                .inputFailover(input: redact(input), from: redact(from), to: redact(to), reason: reason)
            case .inputRestored(let input, let from): .inputRestored(input: redact(input), from: redact(from))
            case .libav(let level, let message): .libav(level: level, message: redact(message))
            case .overlayApplied(let overlay): .overlayApplied(overlay: redact(overlay))
            case .overlayFailed(let overlay, let reason, let fallback):
                .overlayFailed(overlay: redact(overlay), reason: redact(reason), fallback: redact(fallback))
            case .overlayRestored(let overlay, let attempts): .overlayRestored(overlay: redact(overlay), attempts: attempts)
            case .destinationChanged(let destination, let url, let state):
                .destinationChanged(destination: redact(destination), url: url.map(redact), state: state.redacted(redact))
            case .destinationCongested(let destination, let queue, let rate, let followed):
                .destinationCongested(destination: redact(destination), queueMilliseconds: queue, bitsPerSecond: rate, followed: followed)
            case .bitrateChanged(let rendition, let from, let to, let reason, let author):
                .bitrateChanged(rendition: redact(rendition), from: from, to: to, reason: redact(reason), by: author)
            case .sourceMuted(let source, let video, let audio, let muted, let at):
                .sourceMuted(source: redact(source), video: video, audio: audio, muted: muted, at: at)
            case .clipStarted(let source, let clip, let loop, let at): .clipStarted(source: redact(source), clip: redact(clip), loop: loop, at: at)
            case .clipEnded(let source, let clip, let at, let reason): .clipEnded(source: redact(source), clip: redact(clip), at: at, reason: reason)
            case .silence(let mix, let silent, let at, let below): .silence(mix: redact(mix), silent: silent, at: at, belowDB: below)
            case .loudness(let alert): .loudness(alert.redacted(redact))
            case .stats(let status): .stats(status.redacted(redact))
            case .runStarted(let pipeline, let inputs, let overlay, let renditions, let destinations, let api):
                .runStarted(pipeline: redact(pipeline), inputs: inputs, overlay: redact(overlay), renditions: renditions,
                            destinations: destinations.map(redact), api: api.map(redact))
            case .runNote(let message): .runNote(message: redact(message))
            case .runStopped(let reason): .runStopped(reason: redact(reason))
            case .schedule(let action): .schedule(action.redacted(redact))
            }
        return StatusEvent(kind, at: time)
    }

    /// The event as one line of JSON (no newline): `ts` and `event` first, then the event's own
    /// keys in alphabetical order. Every string is passed through `redact` (and the finished
    /// line once more), so a stream key the engine knows never reaches the log.
    public func jsonLine(redact: (String) -> String) -> String {
        let event = redacted(redact)
        var line = "{\"ts\":\"\(event.time.formatted(.iso8601WithMilliseconds))\",\"event\":\"\(event.name)\""
        let members = event.payloadMembers()
        if !members.isEmpty { line += "," + members }
        return redact(line + "}")
    }

    /// The event's own keys as JSON object members, without the braces.
    private func payloadMembers() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data: Data
        do {
            data = try encoder.encode(Payload(kind: kind))
        } catch {
            data = Data("{\"error\":\"unencodable event\"}".utf8)
        }
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

extension StatusEvent {
    /// The keys each kind of event carries beside `ts` and `event`.
    private struct Payload: Encodable {
        let kind: Kind

        private enum Key: String, CodingKey {
            case input, label, url, reason, overlay, destination, level, message, pipeline, inputs, renditions, destinations, api, from, to
            case queueMilliseconds = "queue_ms", bitsPerSecond = "bits_per_second", followed, rendition, onAir = "on_air", attempts
            case fromBitsPerSecond = "from_bps", toBitsPerSecond = "to_bps", by
            case source, video, audio, clip, loop, atMs = "at_ms"
            case mix, sinceMs = "since_ms", belowDB = "below_db"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            switch kind {
            case .inputConnected, .inputLost, .inputWaiting, .inputFailed, .inputFailover, .inputRestored:
                try encodeInputEvent(into: &container)
            case .libav(let level, let message):
                try container.encode(level, forKey: .level)
                try container.encode(message, forKey: .message)
            case .overlayApplied(let overlay):
                try container.encode(overlay, forKey: .overlay)
            case .overlayFailed(let overlay, let reason, let fallback):
                try container.encode(overlay, forKey: .overlay)
                try container.encode(reason, forKey: .reason)
                try container.encode(fallback, forKey: .onAir)
            case .overlayRestored(let overlay, let attempts):
                try container.encode(overlay, forKey: .overlay)
                try container.encode(attempts, forKey: .attempts)
            case .destinationChanged(let destination, let url, let state):
                try container.encode(destination, forKey: .destination)
                try container.encodeIfPresent(url, forKey: .url)
                try state.encode(to: encoder)
            case .destinationCongested(let destination, let queue, let rate, let followed):
                try container.encode(destination, forKey: .destination)
                try container.encode(queue, forKey: .queueMilliseconds)
                try container.encode(rate, forKey: .bitsPerSecond)
                try container.encode(followed, forKey: .followed)
            case .bitrateChanged(let rendition, let from, let to, let reason, let author):
                try container.encode(rendition, forKey: .rendition)
                try container.encode(from, forKey: .fromBitsPerSecond)
                try container.encode(to, forKey: .toBitsPerSecond)
                try container.encode(reason, forKey: .reason)
                try container.encode(author, forKey: .by)
            case .sourceMuted, .clipStarted, .clipEnded:
                try encodeSourceEvent(into: &container)
            case .silence(let mix, let silent, let at, let below):
                try container.encode(mix, forKey: .mix)
                try container.encode(at / 1000, forKey: silent ? .sinceMs : .atMs)
                try container.encode(below, forKey: .belowDB)
            case .loudness(let alert):
                try alert.encode(to: encoder)
            case .stats(let status):
                try status.encode(to: encoder)
            case .runStarted(let pipeline, let inputs, let overlay, let renditions, let destinations, let api):
                try container.encode(pipeline, forKey: .pipeline)
                try container.encode(inputs, forKey: .inputs)
                try container.encode(overlay, forKey: .overlay)
                try container.encode(renditions, forKey: .renditions)
                try container.encode(destinations, forKey: .destinations)
                try container.encodeIfPresent(api, forKey: .api)
            case .runNote(let message):
                try container.encode(message, forKey: .message)
            case .runStopped(let reason):
                try container.encode(reason, forKey: .reason)
            case .schedule(let action):
                try action.encode(to: encoder)
            }
        }

        /// The keys of an input's events: the input, and what became of it.
        private func encodeInputEvent(into container: inout KeyedEncodingContainer<Key>) throws {
            switch kind {
            case .inputConnected(let input, let url, let label):
                try container.encode(input, forKey: .input)
                try container.encode(label ?? input, forKey: .label)
                try container.encodeIfPresent(url, forKey: .url)
            case .inputLost(let input, let reason, let label), .inputWaiting(let input, let reason, let label),
                 .inputFailed(let input, let reason, let label):
                try container.encode(input, forKey: .input)
                try container.encode(label ?? input, forKey: .label)
                try container.encode(reason, forKey: .reason)
            case .inputFailover(let input, let from, let to, let reason):
                try container.encode(input, forKey: .input)
                try container.encode(from, forKey: .from)
                try container.encode(to, forKey: .to)
                try container.encode(reason, forKey: .reason)
            case .inputRestored(let input, let from):
                try container.encode(input, forKey: .input)
                try container.encode(from, forKey: .from)
            default:
                break
            }
        }

        /// The keys of a source's events: the source, what changed, and the media time (ms).
        private func encodeSourceEvent(into container: inout KeyedEncodingContainer<Key>) throws {
            switch kind {
            case .sourceMuted(let source, let video, let audio, _, let at):
                try container.encode(source, forKey: .source)
                try container.encode(video, forKey: .video)
                try container.encode(audio, forKey: .audio)
                try container.encode(at / 1000, forKey: .atMs)
            case .clipStarted(let source, let clip, let loop, let at):
                try container.encode(source, forKey: .source)
                try container.encode(clip, forKey: .clip)
                try container.encode(loop, forKey: .loop)
                try container.encode(at / 1000, forKey: .atMs)
            case .clipEnded(let source, let clip, let at, let reason):
                try container.encode(source, forKey: .source)
                try container.encode(clip, forKey: .clip)
                try container.encode(at / 1000, forKey: .atMs)
                try container.encode(reason, forKey: .reason)
            default:
                break
            }
        }
    }
}

extension FormatStyle where Self == Date.ISO8601FormatStyle {
    /// `2025-01-01T12:00:00.000Z`: how the event log writes a time (`ts`, a schedule's `due`).
    static var iso8601WithMilliseconds: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }
}

extension StatusEvent {
    /// A media time as people read it: `12.345 s`.
    private static func seconds(_ instant: MediaInstant) -> String {
        String(format: "%.3f s", Double(instant) / 1_000_000)
    }

    /// The event as one line for people: `destination.retrying  youtube  retrying (attempt 2, in 2.0s)`.
    public var textLine: String {
        name.padding(toLength: max(23, name.count + 1), withPad: " ", startingAt: 0) + detail
    }

    /// What happened, for people, without the event's name: `youtube: retrying (attempt 2, in 2.0s)`.
    public var detail: String {
        switch kind {
        case .inputConnected(let input, let url, let label): (label ?? input) + (url.map { " \($0)" } ?? "")
        case .inputWaiting(let input, let reason, let label), .inputLost(let input, let reason, let label),
             .inputFailed(let input, let reason, let label):
            "\(label ?? input): \(reason)"
        case .inputFailover(let input, let from, let to, let reason):
            reason == "clean" ? "\(input): \(to) back on air in place of \(from)" : "\(input): \(to) on air in place of \(from) (\(reason))"
        case .inputRestored(let input, let from): "\(input): back on air (\(from) stood in)"
        case .overlayApplied(let overlay): overlay
        case .overlayFailed(let overlay, let reason, let fallback): "\(overlay) failed (\(reason)); \(fallback) on air, retrying"
        case .overlayRestored(let overlay, let attempts): "\(overlay) back on air (after \(attempts) retr\(attempts == 1 ? "y" : "ies"))"
        case .destinationChanged(let destination, _, let state): "\(destination): \(state.label)"
        case .destinationCongested(let destination, let queue, let rate, let followed):
            "\(destination): \(queue) ms behind, sending \(String(format: "%.2f", Double(rate) / 1e6)) Mb/s"
                + (followed ? "" : " (optional: left to drop GOPs, the rendition keeps its bitrate)")
        case .bitrateChanged(let rendition, let from, let to, let reason, let author):
            "\(rendition): \(from / 1000)k → \(to / 1000)k by \(author.rawValue) (\(reason))"
        case .libav(let level, let message): "\(level): \(message)"
        case .sourceMuted(let source, let video, let audio, _, let at):
            "\(source): " + (video && audio ? "picture and sound" : video ? "picture" : "sound") + " at \(Self.seconds(at))"
        case .clipStarted(let source, let clip, let loop, let at): "\(source): \(clip)\(loop ? " (looped)" : "") at \(Self.seconds(at))"
        case .clipEnded(let source, let clip, let at, let reason): "\(source): \(clip) \(reason) at \(Self.seconds(at)), \(source) back"
        case .silence(let mix, let silent, let at, let below):
            silent ? "\(mix): dead air, below \(Int(below)) dBFS since \(Self.seconds(at))" : "\(mix): heard again at \(Self.seconds(at))"
        case .loudness(let alert): alert.detail
        case .stats: ""
        case .runStarted(let pipeline, let inputs, let overlay, let renditions, let destinations, let api):
            "\(pipeline): \(inputs) input(s), overlay '\(overlay)', \(renditions) encoder(s) → " + destinations.joined(separator: ", ")
                + (api.map { " · dashboard \($0)" } ?? "")
        case .runNote(let message), .runStopped(let message): message
        case .schedule(let action): action.detail
        }
    }
}
