import OnairConfig
import OnairControl
import OnairPlanner

// What an operator, the schedule or adaptive bitrate asks of a running pipeline: each request
// waits its turn with the supervisor, which checks it against the run's state.

// MARK: - Overlays and destinations

extension RunSupervisor {
    /// Puts `next` on air (through ``OverlaySwitching/put(_:restoring:at:)``), one switch at a
    /// time: the lifecycle's `switching` state is the lock. `restoring`: the attempts a fallback
    /// retry took. `at`: a scheduled switch, landing on the first picture at or after it. Where
    /// it went on air (nil when it was on air already).
    @discardableResult
    func switchOverlay(to next: PipelinePlan, restoring: Int? = nil, at: MediaInstant? = nil) async throws(OverlaySwitchError)
        -> MediaInstant? {
        guard next.renditions == parts.plan.renditions else {
            throw .unavailable(name: next.activeOverlay,
                               reason: "it needs different encoders (its sound or pictures differ); restart with --overlay \(next.activeOverlay)")
        }
        guard lifecycle.beginSwitch() else {
            throw .refused(reason: lifecycle.state == .switching ? "another overlay switch is under way" : "the run is stopping")
        }
        defer { lifecycle.endSwitch() }
        return try await parts.overlays.put(next, restoring: restoring, at: at)
    }

    /// Retries the combination whose failure is `token` with backoff until it is back on air,
    /// another switch or failure takes over, or the run stops (a child task of the loop).
    func retryOverlay(token: Int) async {
        var backoff = parts.overlays.retryBackoff()
        while let wait = backoff.next() {
            guard (try? await clock.sleep(for: wait)) != nil, let plan = parts.overlays.failedPlan(token: token),
                  !lifecycle.state.isTerminal, lifecycle.state != .draining
            else { return }
            do throws(OverlaySwitchError) {
                try await switchOverlay(to: plan, restoring: backoff.attempts)
                return
            } catch {
                guard parts.overlays.retried(token: token, backoff: backoff, error: error) else { return }
            }
        }
    }

    /// Starts destination `name`, which waits for its `start:`, on the first keyframe at or after
    /// `at` (its encoder makes one there); it connects now, to be ready then.
    func startDestination(_ name: String, at: MediaInstant) throws(DestinationControlError) {
        let destination = try destination(named: name)
        let id = ObjectIdentifier(destination)
        guard !lifecycle.state.isTerminal, lifecycle.state != .draining else { throw .refused(reason: "the run is stopping") }
        guard unstarted.contains(id), destination.open(at: at) else {
            throw .refused(reason: outcomes[id] == nil ? "'\(name)' is live already" : "'\(name)' was stopped; it can't start again in this run")
        }
        unstarted.remove(id)
        for encoder in parts.encoders where encoder.rendition.id == destination.output.rendition { encoder.forceKeyframe(at: at) }
        destination.start()
    }

    /// Stops destination `name` after its last picture before `at`: it sends what it has and
    /// closes (a recording gets its trailer).
    func stopDestination(_ name: String, at: MediaInstant) throws(DestinationControlError) {
        let destination = try destination(named: name)
        guard !unstarted.contains(ObjectIdentifier(destination)), destination.close(at: at) else {
            throw .refused(reason: "'\(name)' is not live")
        }
    }

    private func destination(named name: String) throws(DestinationControlError) -> any HoldableDestination {
        guard let destination = parts.destinations.first(where: { $0.output.destination == name }) else { throw .unknown(name) }
        return destination
    }
}

// MARK: - Bitrate

extension RunSupervisor {
    /// The one way a rendition's video bitrate changes, whoever asks: adaptive bitrate each time
    /// it decides, an operator through ``RunControl``. `name` is a rendition's id or the name of
    /// a destination it feeds. An operator's bitrate is clamped to the rendition's range (its
    /// `min_bitrate` to its plan) and pins it: adaptive bitrate leaves it there until the
    /// operator asks for `.auto`. Each change emits `bitrate.changed` saying by whom, from and
    /// to; the encoder applies it before its next picture.
    @discardableResult
    func setBitrate(of name: String, to setting: BitrateSetting, by author: BitrateAuthor, reason: String? = nil) throws(BitrateError)
        -> BitrateChange {
        let encoder = try adjustableEncoder(named: name)
        guard !stopPhase.isStopping, !lifecycle.state.isTerminal else {
            throw .refused(reason: "the run is \(lifecycle.state.rawValue): bitrates stay where they are while the encoders flush")
        }
        let rendition = encoder.rendition, from = encoder.requestedBitrate
        let planned = rendition.video.bitrate, range = min(planned, rendition.video.adaptive?.minBitrate ?? planned)...planned
        var change = BitrateChange(rendition: rendition.id, destinations: rendition.destinations, control: .adaptive, from: from, to: from,
                                   requested: nil, minimum: range.lowerBound, maximum: range.upperBound, clamped: false, message: "")
        var why = reason ?? ""
        switch setting {
        case .auto:
            steering?.control(rendition.id, pinned: false, at: from)
            why = "handed back to adaptive bitrate"
        case .bitsPerSecond(let asked):
            guard asked > 0 else { throw .invalid(reason: "a bitrate must be above 0 (asked \(asked) bit/s)") }
            change.to = min(range.upperBound, max(range.lowerBound, asked))
            if author == .operator {
                change.requested = asked
                change.clamped = change.to != asked
                change.control = .operator
                steering?.control(rendition.id, pinned: true, at: change.to)
                why = "pinned by the operator until auto" + (change.clamped ? "; asked \(asked / 1000)k, clamped to \(rendition.id)'s range "
                    + "\(range.lowerBound / 1000)k–\(range.upperBound / 1000)k" : "")
            }
            encoder.requestBitrate(change.to)
        }
        change.message = "\(rendition.id): \(from / 1000)k → \(change.to / 1000)k, \(why)"
        parts.events.emit(.bitrateChanged(rendition: rendition.id, from: from, to: change.to, reason: why, by: author))
        return change
    }

    /// The encoder of the adaptive rendition `name` names (its id, or a destination it feeds).
    private func adjustableEncoder(named name: String) throws(BitrateError) -> any EncoderWorker {
        let fed = parts.plan.outputs.first { $0.destination == name }?.rendition
        guard let encoder = parts.encoders.first(where: { $0.rendition.id == name || $0.rendition.id == fed }) else {
            throw .unknown(name: name, known: parts.encoders.map { "\($0.rendition.id) (\($0.rendition.destinations.joined(separator: ", ")))" })
        }
        guard encoder.rendition.video.adaptive != nil else {
            throw .fixed(rendition: encoder.rendition.id, destinations: encoder.rendition.destinations)
        }
        return encoder
    }

    /// One tick of adaptive bitrate (not once the run drains: bitrates stay where they are while
    /// the encoders flush); what it decides goes through ``setBitrate(of:to:by:reason:)``.
    func steer() {
        guard !stopPhase.isStopping, let steps = steering?.tick() else { return }
        for step in steps {
            for event in step.events { parts.events.emit(event) }
            guard let bitrate = step.bitrate else { continue }
            do throws(BitrateError) {
                try setBitrate(of: step.rendition, to: .bitsPerSecond(bitrate), by: .adaptive, reason: step.reason)
            } catch {
                parts.events.emit(.runNote(message: "adaptive bitrate could not change \(step.rendition): \(error)"))
            }
        }
    }
}

// MARK: - Sources

extension RunSupervisor {
    /// Mutes (`muted`) or unmutes `source`'s picture and/or sound from the output frame `at`
    /// lands on (see ``RunParts/landing(of:)``), which it returns; a clip in its place ends there.
    func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool, at: MediaInstant?) throws(SourceControlError) -> MediaInstant {
        try acceptSourceControl()
        let landing = parts.landing(of: at)
        let unstarted = parts.directions.setMuted(muted, source: source, video: video, audio: audio, from: landing,
                                                  settled: parts.clock.micros - 1_000_000)
        for cue in unstarted { cue.reader.stop() }
        parts.events.emit(.sourceMuted(source: source, video: video, audio: audio, muted: muted, at: landing))
        return landing
    }

    /// Puts the clip `reader` reads (opened, not started) in its source's place from the output
    /// frame `at` lands on (returned); it starts reading now, ahead of that time, paced to it.
    /// `from`: where in the clip it is at `at` (a clip that began before the run plays on from
    /// there; looped, modulo its length); a clip played once that has ended by then is refused.
    func play(_ reader: InputWorker, in source: String, path: String, loop: Bool, at: MediaInstant?, from: MediaInstant = 0)
        throws(SourceControlError) -> MediaInstant {
        try acceptSourceControl()
        guard lifecycle.state != .preparing else { throw .refused(reason: "the run has not started") }
        let landing = parts.landing(of: at)
        let into = try ClipCue.position(at: landing, of: reader.fileLength, asked: at, from: from, loop: loop)
        clipsPlayed += 1
        clipReaders.insert(ObjectIdentifier(reader))
        let ends = loop ? nil : reader.fileLength.map { landing + $0 - into }
        let cue = ClipCue(id: clipsPlayed, source: source, path: path, loop: loop, from: landing, ends: ends, reader: reader)
        for unstarted in parts.directions.play(cue) { unstarted.reader.stop() }
        reader.start(at: landing, skipping: into)
        parts.events.emit(.clipStarted(source: cue.source, clip: path, loop: loop, at: landing))
        return landing
    }

    /// Refuses a change to a mix or a destination's sound once the run is stopping.
    func acceptMixControl() throws(MixControlError) {
        switch lifecycle.state {
        case .draining, .stopped, .failed: throw .refused(reason: "the run is stopping")
        case .preparing, .starting, .live, .switching: break
        }
    }

    private func acceptSourceControl() throws(SourceControlError) {
        switch lifecycle.state {
        case .draining, .stopped, .failed: throw .refused(reason: "the run is stopping")
        case .preparing, .starting, .live, .switching: break
        }
    }
}
