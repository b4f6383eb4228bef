import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stream of JSON lines on disk (`events.jsonl`), written a line at a time straight to the
/// file: each line reaches the kernel as it is written, so a process killed with SIGKILL leaves
/// every line but, at worst, the one being written. Rotated past a size: `events.jsonl` becomes
/// `events-N.jsonl` (N growing), and only the newest files are kept.
///
/// Owned by one task (the recorder's loop that writes it).
final class RotatingLines {
    let folder: URL
    let stem: String
    let limits: RecordLimits
    private var descriptor: Int32 = -1
    private var written = 0

    init(folder: URL, stem: String, limits: RecordLimits) {
        self.folder = folder
        self.stem = stem
        self.limits = limits
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The file being written.
    var current: URL { folder.appendingPathComponent("\(stem).jsonl") }

    /// Appends `line` and a newline; a failure to write drops the line (the run goes on).
    func append(_ line: String) {
        if descriptor < 0 { openCurrent() }
        guard descriptor >= 0 else { return }
        let data = Array((line + "\n").utf8)
        if written > 0, written + data.count > limits.segmentBytes { rotate() }
        let count = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count > 0 { written += count }
    }

    private func openCurrent() {
        descriptor = open(current.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        var info = stat()
        written = descriptor >= 0 && fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The current file becomes the newest numbered one; the oldest go past `segments`.
    private func rotate() {
        close(descriptor)
        descriptor = -1
        let numbered = Self.numbers(of: stem, in: folder)
        let next = (numbered.last ?? 0) + 1
        try? FileManager.default.moveItem(at: current, to: folder.appendingPathComponent("\(stem)-\(next).jsonl"))
        for number in (numbered + [next]).dropLast(max(limits.segments - 1, 0)) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(stem)-\(number).jsonl"))
        }
        openCurrent()
    }

    /// The numbers of the rotated files of `stem`, ascending.
    static func numbers(of stem: String, in folder: URL) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasPrefix(stem + "-"), name.hasSuffix(".jsonl") else { return nil }
            return Int(name.dropFirst(stem.count + 1).dropLast(6))
        }.sorted()
    }

    /// Every file of `stem` in writing order: the rotated ones, then the current one.
    static func files(of stem: String, in folder: URL) -> [URL] {
        numbers(of: stem, in: folder).map { folder.appendingPathComponent("\(stem)-\($0).jsonl") }
            + [folder.appendingPathComponent("\(stem).jsonl")].filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
