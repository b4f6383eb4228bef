import Foundation
import OnairProcess
import Synchronization

/// A font file and the face in it that drawtext loads.
public struct FontFile: Hashable, Sendable {
    /// Absolute path.
    public var path: String
    /// The face's index in a collection (`.ttc`); 0 for a single-face file.
    public var index: Int

    /// Creates a reference to face `index` of `path`.
    public init(path: String, index: Int = 0) {
        self.path = path
        self.index = index
    }
}

/// Where text layers' fonts come from: a family name resolved to a file the way drawtext's
/// `font=` would resolve it — fontconfig's choice, asked once per family through `fc-match`,
/// or, without fontconfig's tools, the first of a few well-known paths — and each file's face
/// read once. Resolving here, once, lets a plan name the file (`fontfile=`), so neither the
/// check of every compiled graph nor the run loads fontconfig again.
public final class FontBook: Sendable {
    /// The book every planner shares: each family is looked up once per process.
    public static let shared = FontBook()

    /// The file for a family.
    private let locate: @Sendable (String) -> FontFile?
    /// Whether `locate`'s answers are kept (a lookup starts `fc-match`).
    private let remembers: Bool
    private let answers = Mutex<[String: FontFile?]>([:])
    private let faces = Mutex<[FontFile: Result<FontFace, FontError>]>([:])

    /// A book that resolves families with `locate` (by default fontconfig, then known paths),
    /// asking it once per family.
    public init(locate: @escaping @Sendable (String) -> FontFile? = FontBook.systemFile(forFamily:)) {
        self.locate = locate
        remembers = true
    }

    /// A book that knows only `families` and looks nothing up: any other family has no file.
    /// For the fuzzer, which makes up a family name for text layers at every turn and must
    /// neither start `fc-match` for each one nor remember them all.
    public init(families: [String: FontFile]) {
        locate = { families[$0] }
        remembers = false
    }

    /// The file drawtext would load for `family`, or nil when none can be found.
    public func file(forFamily family: String) -> FontFile? {
        guard remembers else { return locate(family) }
        if let known = answers.withLock({ $0[family] }) { return known }
        let found = locate(family)
        answers.withLock { $0[family] = .some(found) }
        return found
    }

    /// The face in `file`, read once per process.
    public func face(in file: FontFile) -> Result<FontFace, FontError> {
        if let known = faces.withLock({ $0[file] }) { return known }
        let result: Result<FontFace, FontError>
        do throws(FontError) {
            result = .success(try FontFace(data: Self.contents(of: file.path), index: file.index))
        } catch {
            result = .failure(error)
        }
        faces.withLock { $0[file] = result }
        return result
    }

    /// The largest font file read (the largest CJK collections are about 30 MiB).
    public static let maxFileBytes = 64 << 20

    /// The bytes of the font file at `path`: a regular file of at most `maxFileBytes` (a path
    /// such as /dev/zero or a FIFO would otherwise be read forever).
    static func contents(of path: String) throws(FontError) -> Data {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw .unreadable("no such file, or not readable")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .unreadable("not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxFileBytes else { throw .unreadable("larger than \(maxFileBytes >> 20) MiB") }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable("no such file, or not readable") }
        return data
    }

    // MARK: - Finding system fonts

    /// fontconfig's file for `family` (what drawtext's `font=` loads), else the first existing
    /// well-known path for it.
    @Sendable public static func systemFile(forFamily family: String) -> FontFile? {
        fontconfigFile(forFamily: family) ?? knownFile(forFamily: family)
    }

    /// Asks `fc-match` (10 s at most: a first run may build fontconfig's cache).
    static func fontconfigFile(forFamily family: String) -> FontFile? {
        guard let tool = executable(named: "fc-match") else { return nil }
        let answer = Pipe()
        let child = try? ChildProcess(executable: tool, arguments: ["--format=%{file}\n%{index}\n", family],
                                      standardOutput: answer.fileHandleForWriting.fileDescriptor)
        try? answer.fileHandleForWriting.close()
        guard let child else { return nil }
        // Its answer is one short line, far below a pipe's buffer: waiting first can't stall it.
        guard child.wait(timeout: .seconds(10)) else {
            child.send(SIGKILL)
            child.wait(timeout: .seconds(1))
            return nil
        }
        guard child.termination?.succeeded == true else { return nil }
        let data = answer.fileHandleForReading.readDataToEndOfFile()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let path = lines.first, path.hasPrefix("/"), FileManager.default.isReadableFile(atPath: path) else { return nil }
        return FontFile(path: path, index: lines.count > 1 ? Int(lines[1]) ?? 0 : 0)
    }

    /// Folders where distributions install fonts (Debian, Arch, Fedora, macOS).
    static let knownFolders = [
        "/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/usr/share/fonts/dejavu",
        "/usr/share/fonts/dejavu-sans-fonts", "/Library/Fonts", "/System/Library/Fonts/Supplemental",
    ]

    /// `FamilyWithoutSpaces.ttf` in one of `knownFolders` ("DejaVu Sans" → DejaVuSans.ttf).
    static func knownFile(forFamily family: String) -> FontFile? {
        let name = family.replacingOccurrences(of: " ", with: "")
        for folder in knownFolders {
            for suffix in [".ttf", ".otf"] {
                let path = folder + "/" + name + suffix
                if FileManager.default.isReadableFile(atPath: path) { return FontFile(path: path) }
            }
        }
        return nil
    }

    private static func executable(named name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
