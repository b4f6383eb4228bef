import Foundation
import HTTPTypes
import Hummingbird
import OnairControl
import OnairRecord
import OnairThreads
import Synchronization

/// The run whose record `GET /report` shows: the running run, by its id in the pipeline's archive.
public struct RecordedRun: Sendable {
    public var archive: RunArchive
    /// The run's id (`RunRecorder.runID`).
    public var id: String

    /// Run `id` of `archive`.
    public init(archive: RunArchive, id: String) {
        self.archive = archive
        self.id = id
    }
}

/// `GET /report`: the HTML report of the running run, as recorded so far, which the dashboard
/// links to. The record is read and the report made again only when the run's files changed
/// (their names, sizes and modification times): a reload between two samples costs a `stat` a file.
final class RunReportPage: Sendable {
    private let run: RecordedRun?
    private let made = Mutex<(stamp: FolderStamp, page: ByteBuffer)?>(nil)

    /// A page for `run` (nil: the run keeps no record, 404).
    init(run: RecordedRun?) {
        self.run = run
    }

    func add(to router: Router<BasicRequestContext>) {
        router.get("/report") { _, _ in try await self.response() }
    }

    func response() async throws -> Response {
        guard let run else { throw HTTPError(.notFound, message: "this run keeps no record") }
        // A long run's record takes a while to read and draw: not on the concurrency pool,
        // whose threads the run's control and status calls need meanwhile.
        let page = try await onOwnThread(named: "report") { try self.page(of: run) }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: page))
    }

    /// The report of `run`'s record as it is now (blocks: reads the record's files).
    private func page(of run: RecordedRun) throws -> ByteBuffer {
        let stamp = FolderStamp(of: run.archive.runFolder(run.id))
        return try made.withLock { made -> ByteBuffer in
            if let made, made.stamp == stamp { return made.page }
            let record: RunRecord
            do {
                record = try RunRecord.load(run.id, from: run.archive)
            } catch {
                throw HTTPError(.notFound, message: "\(error)")
            }
            let page = ByteBuffer(string: RunReport(record).html)
            made = (stamp, page)
            return page
        }
    }
}

/// What a folder's files are now, as far as a cache needs to know: each one's name, size and
/// modification time.
struct FolderStamp: Equatable {
    struct File: Equatable {
        var name: String
        var size: Int
        var modified: Date
    }

    var files: [File]

    init(of folder: URL) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let urls = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys)) ?? []
        files = urls.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return File(name: url.lastPathComponent, size: values.fileSize ?? 0, modified: values.contentModificationDate ?? .distantPast)
        }.sorted { $0.name < $1.name }
    }
}
