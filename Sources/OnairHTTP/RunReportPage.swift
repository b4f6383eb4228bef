import HTTPTypes
import Hummingbird
import OnairRecord

/// `GET /report`: the HTML report of the pipeline's latest recorded run (the one running, as
/// recorded so far), which the dashboard links to.
enum RunReportPage {
    /// Serves it on `router` from `archive` (nil: the run keeps no record, 404).
    static func add(to router: Router<BasicRequestContext>, archive: RunArchive?) {
        router.get("/report") { _, _ in try response(archive: archive) }
    }

    static func response(archive: RunArchive?) throws -> Response {
        guard let archive, let latest = archive.runIDs.last else { throw HTTPError(.notFound, message: "this run keeps no record") }
        let record: RunRecord
        do {
            record = try RunRecord.load(latest, from: archive)
        } catch {
            throw HTTPError(.notFound, message: error.description)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: RunReport(record).html)))
    }
}
