#if canImport(Glibc)
import Glibc
#endif

/// Gives the pages of memory freed by a graph that left the air back to the system.
///
/// glibc's allocator keeps freed memory for reuse: each thread that allocates (every input,
/// the compositor, the standby builder) gets an arena of its own, and after a large block is
/// freed it serves blocks of that size from those arenas instead of mapping them. A graph
/// built on one thread and freed on another left its pages behind, scattered: resident memory
/// grew by about 0.3 MB an overlay switch (an hour's soak of switches every 5 s: +16 MB in
/// 24 switches, levelling off), though what was allocated stayed flat (13–16 MB).
enum FreedMemory {
    /// Returns the free pages of every arena (`malloc_trim`); a few milliseconds, called after
    /// a combination's graphs are rebuilt, not per frame.
    static func release() {
        _ = trim?(0)
    }

    /// glibc's `malloc_trim`, looked up once: `<malloc.h>` is not part of Swift's Glibc module
    /// (nil with another C library).
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
