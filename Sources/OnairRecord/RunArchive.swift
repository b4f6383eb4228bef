import Foundation

/// The runs of one pipeline on disk: `.onair/runs/NAME/START/`, START a sortable UTC time
/// (`20260101T120000Z`), each holding `run.json`, `events*.jsonl` and `samples*.jsonl`.
public struct RunArchive: Sendable {
    /// `.onair/runs/NAME`.
    public let folder: URL

    /// The archive of `pipeline` in the project at `projectRoot`.
    public init(pipeline: String, projectRoot: URL) {
        folder = projectRoot.appendingPathComponent(".onair/runs/\(pipeline)", isDirectory: true)
    }

    /// The ids of the runs kept, oldest first.
    public var runIDs: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent("\($0)/run.json").path) }.sorted()
    }

    /// The folder of run `id`.
    public func runFolder(_ id: String) -> URL { folder.appendingPathComponent(id, isDirectory: true) }

    /// The id of a run starting at `date`: its UTC second, with `-2`, `-3`… when taken.
    func newRunID(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = formatter.string(from: date)
        var id = base, suffix = 2
        while FileManager.default.fileExists(atPath: runFolder(id).path) {
            id = "\(base)-\(suffix)"
            suffix += 1
        }
        return id
    }

    /// Removes the oldest runs so that at most `keep` remain (never `except`, the one running).
    func prune(keep: Int, except current: String) {
        let ids = runIDs.filter { $0 != current }
        for id in ids.dropLast(max(keep - 1, 0)) { try? FileManager.default.removeItem(at: runFolder(id)) }
    }

    /// Bytes the run `id` takes on disk.
    public func size(of id: String) -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(at: runFolder(id), includingPropertiesForKeys: [.fileSizeKey])) ?? []
        return files.reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
    }
}

/// `run.json`: what a run is, written when it starts and again when it ends.
public struct RunMeta: Codable, Sendable, Equatable {
    /// The run's id (its folder's name).
    public var id: String
    public var pipeline: String
    /// When the recording started.
    public var started: Date
    /// The process that ran it (to tell a run still going from one that was killed).
    public var pid: Int32
    /// Destination → the rendition feeding it.
    public var renditions: [String: String]
    /// When it ended; nil while running, or when the process was killed.
    public var ended: Date?
    /// `stopped` or `failed` (the run's last state), once it ended.
    public var outcome: String?
    /// Why it ended (`run.stopped`'s reason).
    public var reason: String?
    /// Events the recorder dropped because it fell behind, by name (only frequent ones,
    /// `libav.log`: a lifecycle event is never dropped); nil when none was.
    public var droppedEvents: [String: Int]?

    /// A run starting now.
    public init(id: String, pipeline: String, started: Date, pid: Int32, renditions: [String: String]) {
        self.id = id
        self.pipeline = pipeline
        self.started = started
        self.pid = pid
        self.renditions = renditions
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Writes `run.json` in `folder` (whole, through a temporary file: never half a file).
    func write(to folder: URL) throws {
        try Self.encoder.encode(self).write(to: folder.appendingPathComponent("run.json"), options: .atomic)
    }

    /// Reads `run.json` of `folder`.
    static func read(from folder: URL) throws -> RunMeta {
        try decoder.decode(RunMeta.self, from: Data(contentsOf: folder.appendingPathComponent("run.json")))
    }
}
