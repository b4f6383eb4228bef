import Foundation
import OnairControl
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    @Suite("Adaptive bitrate in a run, through a link shaped by tc to nginx-rtmp in a namespace")
    struct AdaptiveBitrate {
        private static let key = "SENTINEL-" + UUID().uuidString.prefix(8)

        /// A camera whose every picture is new noise, so that x264 makes all the bitrate it is
        /// allowed (a test picture compresses far below 4.5 Mb/s at 640x360): a 3 s clip, looped.
        static let noisyScene = """
            sources:
              camera: {kind: file, path: ../noise.mkv, loop: true}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            """

        /// Writes `noise.mkv` (the clip `noisyScene` loops) into `project`.
        static func writeNoisyClip(into project: ScratchProject) async throws {
            let clip = project.file("noise.mkv").path
            let output = try await Subprocess.run("/usr/bin/ffmpeg", [
                "-nostdin", "-v", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=\(RunPipeline.width)x\(RunPipeline.height):rate=\(RunPipeline.fps),noise=alls=48:allf=t+u",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "18", "-g", "\(RunPipeline.fps)",
                "-c:a", "aac", "-b:a", "64k", clip,
            ], timeout: .seconds(60))
            try #require(output.status == 0, "\(output)")
        }

        @Test("4.5 Mb/s through 3 → 1.5 → 6 Mb/s: the bitrate steps down after each narrowing and back up after the widening, with no disconnect, and nginx's recording reads back",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func followsTheLink() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 3_000_000, delay: .milliseconds(40), record: true) }
            defer { link.stop() }
            let project = try await Self.adaptiveProject(streamingTo: link.ingest.url(stream: "{key}"))
            defer { project.remove() }
            let run = try await Self.liveRun(of: project)
            defer { run.child.terminate(grace: .seconds(2)) }

            // 4.5 Mb/s into 3 Mb/s: cut.
            let changes = { run.events.filter { $0.event == "bitrate.changed" } }
            let onThree = try #require(await run.waitForEvent(timeout: .seconds(20)) { $0.event == "bitrate.changed" && ($0.to_bps ?? .max) < 3_000_000 },
                                       "no cut on the 3 Mb/s link")
            #expect(onThree.rendition == "r0" && (onThree.from_bps ?? 0) > (onThree.to_bps ?? 0))
            #expect(run.events.contains { $0.event == "destination.congested" && $0.destination == "ingest" && $0.followed == true })
            // Climbing again on the 3 Mb/s link, above what the next narrowing leaves, before it narrows.
            let settled = await eventually(timeout: .seconds(40), every: .milliseconds(100)) {
                changes().last.map { ($0.to_bps ?? 0) >= 1_700_000 && ($0.to_bps ?? 0) > ($0.from_bps ?? 0) } == true
            }
            try #require(settled, "never climbed past 1.7 Mb/s on the 3 Mb/s link: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0) })")

            // Narrower: cut again, below what the link now carries.
            try await OwnThread.run { try link.setRate(1_500_000) }
            let beforeNarrowing = changes().count
            let onOneAndHalf = await waitForChange(in: run, after: beforeNarrowing, timeout: .seconds(20)) { ($0.to_bps ?? .max) < 1_500_000 }
            #expect(onOneAndHalf != nil, "no cut below 1.5 Mb/s after the link narrowed: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0) })")
            #expect(onOneAndHalf.map { ($0.from_bps ?? 0) > ($0.to_bps ?? 0) } == true, "a cut")
            // The kernel's view of the connection (TCP_INFO: its round trip grows as the shaper queues) made a cut.
            #expect(changes().contains { $0.reason?.contains("its link queues") == true }, "\(changes().compactMap(\.reason))")
            try await Task.sleep(for: .seconds(3))

            // Wider: back up, past what the narrow link carried.
            try await OwnThread.run { try link.setRate(6_000_000) }
            let beforeWidening = changes().count
            let climbed = await waitForChange(in: run, after: beforeWidening, timeout: .seconds(40)) { ($0.to_bps ?? 0) >= 2_500_000 }
            #expect(climbed != nil, "the bitrate did not climb after the link widened: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0) })")
            #expect(climbed.map { ($0.to_bps ?? 0) > ($0.from_bps ?? 0) } == true, "a step up")
            let status = try #require(run.lastStats?.renditions?.first { $0.id == "r0" })
            #expect(changes().compactMap(\.to_bps).contains(status.bitrate ?? 0), "the status says the bitrate now, one of those changed to")

            run.send(SIGINT)
            let output = await run.finish(timeout: .seconds(20))
            #expect(output.status == 0, "\(output)")
            #expect(run.states(of: "ingest").filter { $0 == "live" }.count == 1, "one connection for the whole run: \(run.states(of: "ingest"))")
            #expect(run.lastStats?.stats(of: "ingest")?.stats.reconnects == 0)
            let recording = try #require(link.ingest.recordings.first, "nginx recorded nothing")
            let video = await FFprobe.streams(of: recording.path, timeout: .seconds(20)).first { $0.codecType == "video" }
            #expect(video?.width == RunPipeline.width && video?.height == RunPipeline.height, "\(String(describing: video))")
            let arrived = await FFprobe.duration(of: recording.path)
            #expect((arrived ?? 0) > 10, "the whole run arrived")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }

        @Test("SRT: 4.5 Mb/s on a link narrowed from 8 to 3 Mb/s, cut from libsrt's view of the link (round trip, send buffer) with no disconnect; back up after it widens; ffmpeg's recording reads back",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func followsAnSRTLink() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 8_000_000, delay: .milliseconds(40)) }
            defer { link.stop() }
            let receiver = try await OwnThread.run { try SRTTestReceiver(host: link.address, namespace: link.namespace) }
            defer { receiver.stop() }
            // Half a second of latency: retransmissions on the narrowed link arrive in time.
            let project = try await Self.adaptiveProject(streamingTo: receiver.url(query: "?latency=500000&streamid={key}"))
            defer { project.remove() }
            let run = try await Self.liveRun(of: project)
            defer { run.child.terminate(grace: .seconds(2)) }
            let live = ContinuousClock.now
            // The path's own round trip is seen while the link is wide.
            try await Task.sleep(for: .seconds(4))
            let changes = { run.events.filter { $0.event == "bitrate.changed" } }
            #expect(changes().isEmpty, "no cut while 8 Mb/s carry 4.5: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0, $0.reason ?? "") })")

            try link.setRate(3_000_000)
            let cut = await waitForChange(in: run, after: 0, timeout: .seconds(20)) { ($0.to_bps ?? .max) < 3_000_000 }
            try #require(cut != nil, "no cut under 3 Mb/s on the 3 Mb/s link: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0, $0.reason ?? "") })")
            #expect(run.events.contains { $0.event == "destination.congested" && $0.destination == "ingest" && $0.followed == true })
            // Only libsrt's view can make that cut: libsrt takes every packet at once, so the
            // destination's own queue stays empty; what waits is in its send buffer.
            let first = try #require(changes().first)
            #expect(first.reason?.contains("ingest is ") == true, "\(first.reason ?? "")")
            print("SRT cuts: \(changes().map { "\($0.from_bps ?? 0) → \($0.to_bps ?? 0): \($0.reason ?? "")" })")
            let linked = run.events.filter { $0.event == "stats" }.compactMap { $0.destinations?.first { $0.name == "ingest" }?.link }
            #expect(!linked.isEmpty, "the status shows libsrt's figures")
            try await Task.sleep(for: .seconds(8))

            try link.setRate(8_000_000)
            let beforeWidening = changes().count
            let climbed = await waitForChange(in: run, after: beforeWidening, timeout: .seconds(40)) { ($0.to_bps ?? 0) >= 4_000_000 }
            #expect(climbed != nil, "the bitrate did not climb after the link widened: \(changes().map { ($0.from_bps ?? 0, $0.to_bps ?? 0) })")

            run.send(SIGINT)
            let wasLive = (ContinuousClock.now - live) / .seconds(1)
            let output = await run.finish(timeout: .seconds(20))
            #expect(output.status == 0, "\(output)")
            #expect(run.states(of: "ingest").filter { $0 == "live" }.count == 1, "one connection for the whole run: \(run.states(of: "ingest"))")
            let dropped = run.lastStats?.destinations?.first { $0.name == "ingest" }?.link?.late_dropped_packets
            _ = await OwnThread.run { receiver.finish(timeout: .seconds(10)) }
            let arrived = await FFprobe.duration(of: receiver.recording.path)
            // All of it but the receiver's latency and the last moments of the drain.
            #expect((arrived ?? 0) > wasLive - 2, "the run was live for \(wasLive) s and \(String(describing: arrived)) s arrived, \(String(describing: dropped)) packets dropped late")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }

        @Test("two destinations to one nginx port, each with its own adaptive rendition: narrowing one's connection (tc on its source port, from the status) cuts only that one's rendition; the other stays at its plan",
              .enabled(if: ShapedLink.canBeMade, "needs root, iproute2 and network namespaces"), .hangGuard)
        func cutsOnlyTheNarrowedConnection() async throws {
            let link = try await OwnThread.run { try ShapedLink(rate: 40_000_000, delay: .milliseconds(20)) }
            defer { link.stop() }
            let url = link.ingest.url(stream: "{key}")
            // Minimums apart, so each destination gets a rendition of its own: r0 for the first
            // (renditions are numbered in the order destinations use them), r1 for the second.
            let project = try ScratchProject(destinations: [
                ("primary", "{kind: url, url: \"\(url)\", key: {env: KEY_PRIMARY}, adaptive: {min_bitrate: 500k}}"),
                ("backup", "{kind: url, url: \"\(url)\", key: {env: KEY_BACKUP}, adaptive: {min_bitrate: 600k}}"),
            ], bitrate: "2500k", scene: Self.noisyScene)
            defer { project.remove() }
            try await Self.writeNoisyClip(into: project)
            let run = try OnairRun(project, keys: ["KEY_PRIMARY": "\(Self.key)-primary", "KEY_BACKUP": "\(Self.key)-backup"],
                                   arguments: ["--duration", "60s", "--stats-interval", "1"])
            defer { run.child.terminate(grace: .seconds(2)) }
            for name in ["primary", "backup"] {
                try #require(await run.waitFor("live", of: name, timeout: .seconds(20)) != nil, "\(name) never connected: \(run.child.stderrSoFar)")
            }
            // Each status names its own connection's local address.
            let locals = { (name: String) in run.lastStats?.stats(of: name)?.link?.local }
            try #require(await eventually(every: .milliseconds(100)) { locals("primary") != nil && locals("backup") != nil },
                         "no local address in the status: \(String(describing: run.lastStats?.destinations))")
            let primary = try #require(locals("primary")), backup = try #require(locals("backup"))
            #expect(primary != backup)
            let port = try #require(primary.split(separator: ":").last.flatMap { Int($0) }, "\(primary)")
            #expect(primary.hasPrefix(link.localAddress + ":") && backup.hasPrefix(link.localAddress + ":"), "\(primary), \(backup)")

            // Both fit the wide link: no cut. Then only the primary's connection narrows, under its stream.
            try await Task.sleep(for: .seconds(3))
            let changes = { run.events.filter { $0.event == "bitrate.changed" } }
            #expect(changes().isEmpty, "a cut while 40 Mb/s carry 2 × 2.5: \(changes().map { ($0.rendition ?? "", $0.to_bps ?? 0) })")
            try link.narrow(sourcePort: port, to: 1_200_000)
            let cut = await waitForChange(in: run, after: changes().count, timeout: .seconds(20)) { $0.rendition == "r0" && ($0.to_bps ?? .max) < 1_200_000 }
            try #require(cut != nil, "no cut of the primary's rendition under 1.2 Mb/s: \(changes().map { ($0.rendition ?? "", $0.to_bps ?? 0, $0.reason ?? "") })")
            // What the narrowed class carried is the primary's stream: the filter matched its connection.
            #expect((link.narrowedBytesSent ?? 0) > 100_000, "\(String(describing: link.narrowedBytesSent)) bytes through the narrowed class")
            try await Task.sleep(for: .seconds(4))

            print("two connections, one narrowed: \(changes().map { "\($0.rendition ?? "") \($0.from_bps ?? 0) → \($0.to_bps ?? 0): \($0.reason ?? "")" })")
            #expect(!changes().contains { $0.rendition != "r0" }, "the backup's rendition changed too: \(changes().map { ($0.rendition ?? "", $0.to_bps ?? 0) })")
            #expect(run.events.contains { $0.event == "destination.congested" && $0.destination == "primary" })
            #expect(!run.events.contains { $0.event == "destination.congested" && $0.destination == "backup" })
            let renditions = run.lastStats?.renditions ?? []
            #expect(renditions.first { $0.id == "r1" }?.bitrate == 2_500_000, "the backup's rendition at its plan: \(renditions)")
            #expect((renditions.first { $0.id == "r0" }?.bitrate ?? .max) < 2_500_000, "the primary's below its plan: \(renditions)")
            #expect(run.lastStats?.stats(of: "backup")?.stats.reconnects == 0 && run.lastStats?.stats(of: "primary")?.stats.reconnects == 0)

            run.send(SIGINT)
            let output = await run.finish(timeout: .seconds(20))
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.contains("SENTINEL") && !output.stderr.contains("SENTINEL"))
        }

        /// A project streaming the noisy camera at 4.5 Mb/s, adaptive down to 500k, to `url`
        /// (its key in `KEY_INGEST`).
        private static func adaptiveProject(streamingTo url: String) async throws -> ScratchProject {
            let project = try ScratchProject(destinations: [
                ("ingest", "{kind: url, url: \"\(url)\", key: {env: KEY_INGEST}, adaptive: {min_bitrate: 500k}}"),
            ], bitrate: "4500k", scene: noisyScene)
            do {
                try await writeNoisyClip(into: project)
            } catch {
                project.remove()
                throw error
            }
            return project
        }

        /// `onair run` of `project` (at most 150 s, a stats line a second), once its ingest is live.
        private static func liveRun(of project: ScratchProject) async throws -> OnairRun {
            let run = try OnairRun(project, keys: ["KEY_INGEST": "\(key)"], arguments: ["--duration", "150s", "--stats-interval", "1"])
            guard await run.waitFor("live", of: "ingest", timeout: .seconds(20)) != nil else {
                await OwnThread.run { [child = run.child] in child.terminate(grace: .seconds(2)) }
                throw Subprocess.LaunchError(description: "never connected: \(run.child.stderrSoFar)")
            }
            return run
        }

        /// Waits for a `bitrate.changed` after the first `count` that satisfies `predicate`.
        private func waitForChange(in run: OnairRun, after count: Int, timeout: Duration, where predicate: (RunEvent) -> Bool) async -> RunEvent? {
            await run.printed(within: timeout) { events in
                events.filter { $0.event == "bitrate.changed" }.dropFirst(count).first(where: predicate)
            }
        }
    }
}
