import Foundation
import OnairControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RunMeta {
    /// `stopped` or `failed` once ended; `running` while its process lives; `interrupted` when
    /// the process ended without saying (killed, or the machine went down).
    public var outcomeNow: String {
        if let outcome { return outcome }
        return pid == getpid() || kill(pid, 0) == 0 ? "running" : "interrupted"
    }
}

/// One line of `onair runs`: what `run.json` and the files' sizes and times say, without
/// reading the record (a day's record is tens of megabytes).
public struct RunEntry: Sendable {
    public var meta: RunMeta
    /// Bytes on disk.
    public var bytes: Int
    /// From the start to the end, or to the last write (a killed or running run).
    public var duration: Double
    /// As ``RunMeta/outcomeNow``.
    public var outcome: String { meta.outcomeNow }
}

extension RunArchive {
    /// The entry of run `id`; nil when its `run.json` can't be read.
    public func entry(_ id: String) -> RunEntry? {
        let folder = runFolder(id)
        guard let meta = try? RunMeta.read(from: folder) else { return nil }
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        let lastWrite = files.compactMap { try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate }.max()
        let end = meta.ended ?? lastWrite ?? meta.started
        return RunEntry(meta: meta, bytes: size(of: id), duration: max(end.timeIntervalSince(meta.started), 0))
    }
}

/// One event as the record holds it: when, its name, and its own keys as text.
public struct RecordedEvent: Sendable, Equatable {
    public var time: Date
    public var name: String
    /// The event's keys beside `ts` and `event`, numbers and booleans as text.
    public var fields: [String: String]

    /// What the event is; nil for a name this build does not know (a record written by
    /// another version).
    public var kind: EventName? { EventName(rawValue: name) }
}

/// A run's record read back from its folder: what `onair report` summarizes. Lines that don't
/// parse (the last one of a run killed mid-write) are skipped and counted.
public struct RunRecord: Sendable {
    public var meta: RunMeta
    public var events: [RecordedEvent]
    public var samples: [RunSample]
    /// Bytes on disk.
    public var bytes: Int
    /// Lines that could not be read.
    public var unreadableLines: Int

    /// Why a record can't be read.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Reads run `id` of `archive`.
    public static func load(_ id: String, from archive: RunArchive) throws(Problem) -> RunRecord {
        let folder = archive.runFolder(id)
        let meta: RunMeta
        do {
            meta = try RunMeta.read(from: folder)
        } catch {
            throw Problem(description: "no readable run '\(id)' in \(archive.folder.path) (\(error))")
        }
        var unreadable = 0
        let events = lines(of: "events", in: folder).compactMap { line -> RecordedEvent? in
            guard let event = Self.event(line) else {
                unreadable += 1
                return nil
            }
            return event
        }
        let samples = lines(of: "samples", in: folder).compactMap { line -> RunSample? in
            guard let sample = try? RunRecorder.decoder.decode(RunSample.self, from: Data(line.utf8)) else {
                unreadable += 1
                return nil
            }
            return sample
        }
        return RunRecord(meta: meta, events: events, samples: samples, bytes: archive.size(of: id), unreadableLines: unreadable)
    }

    /// `stopped` or `failed` once ended; `running` while its process lives; `interrupted` when
    /// the process ended without saying (killed, or the machine went down).
    public var outcome: String { meta.outcomeNow }

    /// From the start to the end, or to the last thing recorded.
    public var duration: Double {
        if let ended = meta.ended { return max(ended.timeIntervalSince(meta.started), 0) }
        let lastEvent = events.last.map { $0.time.timeIntervalSince(meta.started) } ?? 0
        return max(samples.last?.t ?? 0, lastEvent, 0)
    }

    /// The non-empty lines of every file of `stem`, in writing order.
    static func lines(of stem: String, in folder: URL) -> [Substring] {
        RotatingLines.files(of: stem, in: folder).flatMap { file -> [Substring] in
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
            return text.split(separator: "\n")
        }
    }

    private static func event(_ line: Substring) -> RecordedEvent? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let name = object["event"] as? String, let stamp = object["ts"] as? String,
            let time = try? Date(stamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        else { return nil }
        var fields: [String: String] = [:]
        for (key, value) in object where key != "ts" && key != "event" {
            switch value {
            case let text as String: fields[key] = text
            case let number as NSNumber: fields[key] = number.stringValue
            case let flag as Bool: fields[key] = String(flag)
            default: continue
            }
        }
        return RecordedEvent(time: time, name: name, fields: fields)
    }
}
