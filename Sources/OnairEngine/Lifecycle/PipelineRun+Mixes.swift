import Foundation
import OnairConfig
import OnairControl
import OnairPlanner

extension PipelineRun {
    public func setGain(mix: String, source: String, gainDB: Double) async throws(MixControlError) -> RunStatus {
        guard gainDB.isFinite, MixLevels.gainRange.contains(gainDB) else { throw .outOfRange(gainDB: gainDB) }
        let target = try await member(source, of: mix)
        parts.levels.change(target, asked: parts.clock.micros) { $0.gainDB = gainDB }
        return await status(placing: target)
    }

    public func setMuted(_ muted: Bool, mix: String, source: String) async throws(MixControlError) -> RunStatus {
        let target = try await member(source, of: mix)
        parts.levels.change(target, asked: parts.clock.micros) { $0.muted = muted }
        return await status(placing: target)
    }

    public func setAudioMuted(_ muted: Bool, destination: String) async throws(MixControlError) -> RunStatus {
        let name = destination.trimmingCharacters(in: .whitespaces)
        let names = plan.outputs.map(\.destination)
        guard let output = plan.outputs.first(where: { $0.destination == name }) else {
            throw .unknownDestination(name: name, suggestion: Suggestion.phrase(for: name, in: names))
        }
        try await supervisor.acceptMixControl()
        guard let encoder = encoders.first(where: { $0.rendition.id == output.rendition }), encoder.rendition.audio != nil else {
            throw .refused(reason: "destination '\(name)' has no sound")
        }
        // Its sound is muted in its encoder: another destination fed by the same encoder would
        // lose its sound too.
        let sharing = plan.outputs.filter { $0.rendition == output.rendition && $0.destination != name }.map(\.destination)
        guard sharing.isEmpty else {
            throw .refused(reason: "destination '\(name)' shares its encoded sound with " + sharing.map { "'\($0)'" }.joined(separator: ", ")
                + " (same quality and mix); give it a mix of its own (audio: a mix of one member, the mix it hears) to mute it alone")
        }
        encoder.soundGate.set(muted: muted, asked: parts.clock.micros)
        parts.levels.setDestination(name, muted: muted)
        return await status()
    }

    /// The status once the compositor has placed the ramp of the change to `target` (its next
    /// round, woken now), so that it says where the change began; at most a second later.
    private func status(placing target: String) async -> RunStatus {
        compositor.levelsChanged()
        for _ in 0..<200 where !parts.levels.isPlaced(target) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await status()
    }

    /// The `volume` filter of `source` in `mix`, when the run hears that mix and it has that member.
    private func member(_ source: String, of mix: String) async throws(MixControlError) -> String {
        let (mixName, sourceName) = (mix.trimmingCharacters(in: .whitespaces), source.trimmingCharacters(in: .whitespaces))
        let mixes = parts.levels.mixes
        guard let planned = mixes.first(where: { $0.name == mixName }) else {
            throw .unknownMix(name: mixName, suggestion: Suggestion.phrase(for: mixName, in: mixes.map(\.name)))
        }
        guard let member = planned.member(sourceName) else {
            throw .unknownMember(mix: mixName, name: sourceName, suggestion: Suggestion.phrase(for: sourceName, in: planned.members.map(\.name)))
        }
        try await supervisor.acceptMixControl()
        return member.target
    }
}
