import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairThreads

extension PipelineRun {
    /// Every source a control call may name: those of every overlay combination, and those no
    /// combination reads.
    var sourceNames: [String] {
        let inputs = combinations.all.compactMap(\.plan).flatMap(\.inputs) + plan.inputs
        var names = inputs.map(\.name).filter { !$0.hasPrefix("asset:") } + plan.unusedSources
        var seen = Set<String>()
        names.removeAll { !seen.insert($0).inserted }
        return names
    }

    /// `name`, when it names a source of the pipeline.
    private func source(named name: String) throws(SourceControlError) -> String {
        let name = name.trimmingCharacters(in: .whitespaces)
        let names = sourceNames
        guard names.contains(name) else { throw .unknownSource(name: name, suggestion: Suggestion.phrase(for: name, in: names)) }
        return name
    }

    public func mute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        let landing = try await setMuted(true, source: source, video: video, audio: audio, at: at)
        return await status(landedOn: landing, asked: at)
    }

    public func unmute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        let landing = try await setMuted(false, source: source, video: video, audio: audio, at: at)
        return await status(landedOn: landing, asked: at)
    }

    public func play(clip: String, in source: String, loop: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        let landing = try await playClip(clip, in: source, loop: loop, at: at)
        return await status(landedOn: landing, asked: at)
    }

    /// Mutes (`muted`) or unmutes `source`'s picture and/or sound (neither named: both, as in a
    /// schedule's `mute: SOURCE`) as ``mute(source:video:audio:at:)`` does; the media time of
    /// the frame it landed on, which its `source.muted`/`source.unmuted` event gives too.
    public func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError)
        -> MediaInstant
    {
        let name = try self.source(named: source)
        let both = !video && !audio
        return try await supervisor.setMuted(muted, source: name, video: video || both, audio: audio || both, at: at)
    }

    /// Puts the clip at `clip` (a plan path) in `source`'s place as
    /// ``play(clip:in:loop:at:)`` does; the media time of the frame it landed on, which its
    /// `source.clip` event gives too. `from`: for a clip that began before (a show's, before
    /// the run started), how far into it it is at `at`: it plays on from there (further in by
    /// as much as it lands later; looped, modulo its length), and is refused if it has ended.
    public func playClip(_ clip: String, in source: String, loop: Bool, at: MediaInstant?, from: MediaInstant = 0) async
        throws(SourceControlError) -> MediaInstant
    {
        let name = try self.source(named: source)
        let reader = try await openClip(projectRoot.resolvingPlanPath(clip), loop: loop)
        do {
            return try await supervisor.play(reader, in: name, path: clip, loop: loop, at: at, from: from)
        } catch {
            reader.stop()
            throw error
        }
    }

    /// The status once a change asked for the next frame (`asked` nil) has landed, so that it
    /// shows the change; at once for a change asked for a time to come.
    private func status(landedOn landing: MediaInstant, asked: MediaInstant?) async -> RunStatus {
        if asked == nil { try? await Task.sleep(until: parts.clock.instant(atMicros: landing + 1)) }
        return await status()
    }

    /// The clip at `path` opened (on a thread of its own: opening blocks in libav) as an input
    /// that reads it onto the run's timeline, paced like the run's files; not started.
    private func openClip(_ path: String, loop: Bool) async throws(SourceControlError) -> InputWorker {
        // Named for what it is in events (`input.connected clip:brb.mp4`), not for the source.
        let planned = PlannedInput(index: plan.inputs.count, name: "clip:" + URL(fileURLWithPath: path).lastPathComponent, kind: .file(path: path, loop: loop, still: false),
                                   video: VideoFormat(width: plan.canvas.width, height: plan.canvas.height, fps: plan.fps),
                                   audio: AudioFormat(sampleRate: 48000, channels: 2), realtime: options.pacing, lossTimeoutMs: 0)
        let builder = self.builder
        let reader = InputWorker(input: planned, projectRoot: projectRoot, doorbell: builder.doorbell, clock: builder.clock,
                                 pacing: options.pacing, durationMicros: builder.durationMicros, events: builder.events,
                                 reports: builder.reports)
        let opened: Result<Void, SourceControlError> = await withCheckedContinuation { continuation in
            builder.reports.startThread(named: "clip") {
                do {
                    try reader.prepare()
                    continuation.resume(returning: reader.videoFormat == nil && reader.audioFormat == nil
                        ? .failure(.clipUnavailable(clip: path, reason: "it has neither pictures nor sound")) : .success(()))
                } catch {
                    continuation.resume(returning: .failure(.clipUnavailable(clip: path, reason: "\(error)")))
                }
            }
        }
        if case .failure(let error) = opened {
            reader.stop()
            throw error
        }
        return reader
    }
}
