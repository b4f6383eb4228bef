import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner
import OnairTestSupport
import Testing

/// One publisher per stream key: the locks under the project's runtime folder.
@Suite struct StreamKeyLockTests {
    static let keys = StreamKeys(["youtube": "sentinel-yt-4f1c", "twitch": "sentinel-tw-99ab", "tiktok": "sentinel-tt-07de"])

    @Test func aSecondRunOfTheSamePipelineIsRefusedNamingTheHolder() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let (plan, _) = try plannedPipeline("studio")
        let folder = RuntimeFolder(projectRoot: project.root)
        let first = try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder, processID: 4242)
        #expect(first.files.count == 3)

        let refusal = #expect(throws: StreamKeyLock.Held.self) {
            try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder, processID: 4343)
        }
        #expect(refusal?.destination == "youtube")
        #expect(refusal?.holder == StreamKeyLock.Holder(pipeline: "studio", destination: "youtube", pid: 4242))
        let message = refusal.map { "\($0)" } ?? ""
        #expect(message.contains("destination 'youtube'") && message.contains("pipeline 'studio' (pid 4242"), "\(message)")
        #expect(message.contains("env:YOUTUBE_STREAM_KEY"))

        first.release()
        let again = try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder, processID: 4343)
        #expect(again.files.count == 3)
    }

    @Test func anotherPipelineWithTheSameKeyIsRefusedToo() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let (plan, _) = try plannedPipeline("studio")
        let folder = RuntimeFolder(projectRoot: project.root)
        let first = try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder, processID: 4242)
        var other = plan
        other.pipeline = "rehearsal"
        other.outputs = plan.outputs.filter { $0.destination == "twitch" }
        other.outputs[0].destination = "backup-twitch"
        let refusal = #expect(throws: StreamKeyLock.Held.self) {
            try StreamKeyLock.acquire(for: other, keys: StreamKeys(["backup-twitch": "sentinel-tw-99ab"]), in: folder)
        }
        #expect(refusal?.destination == "backup-twitch")
        #expect(refusal?.holder == StreamKeyLock.Holder(pipeline: "studio", destination: "twitch", pid: 4242))
        withExtendedLifetime(first) {}
    }

    @Test func aRefusedRunKeepsNoneOfTheLocksItTook() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let (plan, _) = try plannedPipeline("studio")
        let folder = RuntimeFolder(projectRoot: project.root)
        // Another run holds only tiktok's key (the last one this plan locks).
        var tiktokOnly = plan
        tiktokOnly.outputs = plan.outputs.filter { $0.destination == "tiktok" }
        let other = try StreamKeyLock.acquire(for: tiktokOnly, keys: Self.keys, in: folder, processID: 1)
        #expect(throws: StreamKeyLock.Held.self) { try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder) }
        // youtube's and twitch's locks were given back: a run of those two alone starts.
        var twoOthers = plan
        twoOthers.outputs = plan.outputs.filter { $0.destination != "tiktok" }
        let taken = try StreamKeyLock.acquire(for: twoOthers, keys: Self.keys, in: folder)
        #expect(taken.files.count == 2)
        withExtendedLifetime(other) {}
    }

    @Test func lockFilesNameNoKeyAndArePrivate() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let (plan, _) = try plannedPipeline("studio")
        let folder = RuntimeFolder(projectRoot: project.root)
        let lock = try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder)
        defer { lock.release() }
        let locks = folder.url.appendingPathComponent("locks")
        let attributes = try FileManager.default.attributesOfItem(atPath: locks.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        for file in lock.files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for secret in ["sentinel-yt-4f1c", "sentinel-tw-99ab", "sentinel-tt-07de"] {
                #expect(!file.lastPathComponent.contains(secret) && !text.contains(secret))
            }
            #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func theSameKeyOnAnotherServerIsAnotherLock() throws {
        // A platform's primary and backup ingest take the same key on different servers.
        let project = try ScratchProject()
        defer { project.remove() }
        var (plan, _) = try plannedPipeline("studio")
        plan.outputs = plan.outputs.filter { $0.destination == "youtube" }
        var backup = plan
        backup.outputs[0].target = backup.outputs[0].target.replacingOccurrences(of: "a.rtmp", with: "b.rtmp") + "?backup=1"
        let folder = RuntimeFolder(projectRoot: project.root)
        let primary = try StreamKeyLock.acquire(for: plan, keys: Self.keys, in: folder)
        let second = try StreamKeyLock.acquire(for: backup, keys: Self.keys, in: folder)
        #expect(primary.files != second.files)
    }

    @Test func aPipelineWithoutKeysLocksNothing() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let (plan, _) = try plannedPipeline("demo")
        let lock = try StreamKeyLock.acquire(for: plan, keys: StreamKeys(), in: RuntimeFolder(projectRoot: project.root))
        #expect(lock.files.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: project.root.appendingPathComponent(".onair").path))
    }
}
