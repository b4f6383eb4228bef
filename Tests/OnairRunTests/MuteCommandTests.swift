import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OnairTestSupport
import Testing

extension EndToEnd {
    @Suite("Muting a source of a running pipeline")
    struct MuteCommand {
        @Test("onair mute mutes the picture (the slate shows), --off unmutes; an unknown source gets a did-you-mean",
              .hangGuard)
        func muteAndUnmute() async throws {
            let scene = RunPipeline.redAndBlueScene + "\ninput_loss: {slate: {color: \"#00C000\"}}\n"
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            // Long enough for three commands on a busy machine; stopped with SIGTERM once they are done.
            let run = try OnairRun(project, arguments: ["--duration", "60s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")
            try await Task.sleep(for: .seconds(1))

            let muted = try await onairCommand(["mute", RunPipeline.name, "camera", "--video", "--project", project.path])
            #expect(muted.status == 0 && muted.stdout == "camera: picture muted\n", "\(muted)")
            let typo = try await onairCommand(["mute", RunPipeline.name, "camra", "--project", project.path])
            #expect(typo.status == 1 && typo.stderr.contains("no source 'camra'; did you mean 'camera'?"), "\(typo)")
            try await Task.sleep(for: .seconds(1))
            let unmuted = try await onairCommand(["mute", RunPipeline.name, "camera", "--off", "--project", project.path])
            #expect(unmuted.status == 0 && unmuted.stdout == "camera: nothing muted\n", "\(unmuted)")
            try await Task.sleep(for: .seconds(1))
            run.send(SIGTERM)

            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
            let changes = run.events.filter { $0.event.hasPrefix("source.") }
            #expect(changes.map(\.event) == ["source.muted", "source.unmuted"], "\(changes)")
            #expect(changes.first?.source == "camera" && changes.first?.video == true && changes.first?.audio == false)
            #expect(changes.last?.video == true && changes.last?.audio == true, "--off without --video or --audio unmutes both")

            // Red, then the green slate from the muting frame on, then red again.
            let path = project.file("out/rec.mkv").path
            let colours = try #require(await FFprobe.frameColours(of: path))
            let looks = colours.map { $0.u < 110 && $0.v < 110 ? "slate" : $0.v > 170 ? "camera" : "other" }
            var runs: [String] = []
            for look in looks where runs.last != look { runs.append(look) }
            #expect(runs == ["camera", "slate", "camera"], "\(runs)")
            let mutedAt = try #require(changes.first?.at_ms)
            // The recording starts at the run's first picture (its sound's encoder delay may shift both).
            let origin = try #require(colours.first?.time)
            let firstSlate = try #require(zip(colours, looks).first { $0.1 == "slate" }?.0.time) - origin
            #expect(abs(firstSlate * 1000 - Double(mutedAt)) < 1.5, "the slate from the frame the event names: \(firstSlate) s, \(mutedAt) ms")
        }

        @Test("onair gain and onair mute --mix change one mix's member, --destination D --audio one destination's sound; mistakes get a did-you-mean",
              .hangGuard)
        func mixesAndDestinations() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv")),
                                                            ("clean", "{kind: record, path: ../out/clean.mkv, audio: clean}")], scene: EndToEnd.Mixes.scene)
            defer { project.remove() }
            let run = try OnairRun(project, arguments: ["--duration", "60s"])
            _ = try #require(await run.waitFor("live", of: "rec", timeout: .seconds(15)), "\(run.child.stderrSoFar)")

            let gain = try await onairCommand(["gain", RunPipeline.name, "program", "music", "-10dB", "--project", project.path])
            #expect(gain.status == 0 && gain.stdout == "music in program: -10 dB\n", "\(gain)")
            let muted = try await onairCommand(["mute", RunPipeline.name, "voice", "--mix", "clean", "--project", project.path])
            #expect(muted.status == 0 && muted.stdout == "voice in clean: 0 dB, muted\n", "\(muted)")
            let silenced = try await onairCommand(["mute", RunPipeline.name, "--destination", "clean", "--audio", "--project", project.path])
            #expect(silenced.status == 0 && silenced.stdout == "clean: sound muted\n", "\(silenced)")
            let back = try await onairCommand(["mute", RunPipeline.name, "--destination", "clean", "--audio", "--off", "--project", project.path])
            #expect(back.status == 0 && back.stdout == "clean: sound on\n", "\(back)")

            let typo = try await onairCommand(["gain", RunPipeline.name, "program", "musik", "-6dB", "--project", project.path])
            #expect(typo.status == 1 && typo.stderr.contains("no source 'musik' in mix 'program'; did you mean 'music'?"), "\(typo)")
            let loud = try await onairCommand(["gain", RunPipeline.name, "program", "music", "+30dB", "--project", project.path])
            #expect(loud.status == 1 && loud.stderr.contains("out of range: from -60 to 20 dB"), "\(loud)")
            let usage = try await onairCommand(["mute", RunPipeline.name, "--destination", "clean", "--project", project.path])
            #expect(usage.status == 2, "--destination without --audio: \(usage)")
            run.send(SIGTERM)
            let output = await run.finish(timeout: .seconds(60))
            #expect(output.status == 0, "\(output)")
        }
    }
}
