import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file read through one descriptor: opened once, checked with `fstat` on that
/// descriptor, read whole up to a limit. What is checked (its type, its mode, its size) is the
/// file that is read: nothing can swap the path between a check and the read, as it can between
/// a `stat` of a path and an open of it.
///
/// The one reader of files whose content is trusted or served as it is: secret files (the API
/// token, webhook secrets, stream keys) and the files of an `hls` destination the API serves.
public struct OpenedFile: Sendable {
    /// The content.
    public var bytes: [UInt8]
    /// The permission bits (`0o600`).
    public var mode: Int
    /// The owner's user id.
    public var owner: UInt32 = 0
    /// When it was last written.
    public var modified: Date

    /// Why a file was not read.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// No such file, not allowed, a symbolic link where none is followed: `open` said so.
        case cannotOpen(reason: String)
        /// A folder, a device, a pipe…
        case notRegular
        /// Larger than the limit (bytes).
        case tooLarge(size: Int, limit: Int)
        /// `read` failed.
        case cannotRead(reason: String)

        public var description: String {
            switch self {
            case .cannotOpen(let reason): "can't be opened: \(reason)"
            case .notRegular: "is not a regular file"
            case .tooLarge(let size, let limit): "is too large (\(size) bytes, at most \(limit))"
            case .cannotRead(let reason): "can't be read: \(reason)"
            }
        }
    }

    /// Reads the file at `path`: at most `limit` bytes, or ``Problem/tooLarge(size:limit:)``.
    /// `followingLinks: false` refuses a symbolic link as the last part of the path.
    public static func read(atPath path: String, limit: Int, followingLinks: Bool = true) throws(Problem) -> OpenedFile {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { throw .cannotOpen(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .cannotRead(reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular }
        let size = Int(info.st_size)
        guard size <= limit else { throw .tooLarge(size: size, limit: limit) }
        // One byte more than fstat said: a file that grew since is noticed, not cut short.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(reason: String(cString: strerror(errno)))
            }
            count += got
        }
        guard count <= size else { throw .cannotRead(reason: "it grew while being read") }
        bytes.removeSubrange(count...)
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return OpenedFile(bytes: bytes, mode: Int(info.st_mode & 0o7777), owner: UInt32(info.st_uid), modified: modified)
    }
}

/// `read(2)`, under a name the static `read` above does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
