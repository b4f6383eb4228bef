import CConnectWatch

/// Which TCP connection libavformat makes while an output opens, on the opening thread
/// (CConnectWatch: the executable's own `connect` and `close`, which libavformat's calls bind
/// to; libavformat's calls are noted, nobody else's).
enum ConnectWatch {
    /// Whether libavformat's calls reach the watch in this process.
    static let isAvailable: Bool = connect_watch_available() != 0

    /// Runs `open` and returns the TCP connection libavformat made during it on this thread and
    /// kept open (checked to be the very connection it made, see `connect_watch_end`), or nil.
    static func connection(madeBy open: () throws(LibavError) -> Void) throws(LibavError) -> TCPConnection? {
        guard isAvailable else {
            try open()
            return nil
        }
        connect_watch_begin()
        do {
            try open()
        } catch {
            _ = connect_watch_end()
            throw error
        }
        let descriptor = connect_watch_end()
        return descriptor >= 0 ? TCPConnection(descriptor: descriptor) : nil
    }
}
