#if canImport(Glibc)
import Glibc
#endif

/// The process's memory allocator: what it holds that can go back to the system, and how much
/// of what it holds is in use.
///
/// The `onair` executable links jemalloc (CAllocator), which returns unused pages on its own
/// after a second; purging right after a combination's graphs are rebuilt returns them at once.
/// Under glibc's allocator (a test process), `malloc_trim` gives back the free pages of every
/// per-thread arena — glibc still fragments over hours (a graph built on one thread and freed
/// on another leaves its pages scattered), which is why the executable does not use it.
public enum ProcessAllocator {
    /// Returns the free pages of every arena; a few milliseconds, called after a combination's
    /// graphs are rebuilt, not per frame.
    public static func release() {
        switch allocator {
        case .jemalloc(let mallctl):
            // "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages.
            _ = mallctl("arena.4096.purge", nil, nil, nil, 0)
        case .glibc(let trim):
            _ = trim(0)
        case .other:
            break
        }
    }

    /// Bytes in live allocations now (jemalloc's `stats.allocated`), nil under another
    /// allocator. Resident memory far above it is memory the allocator holds, not a leak.
    public static var allocatedBytes: Int? {
        guard case .jemalloc(let mallctl) = allocator else { return nil }
        // Statistics are a snapshot taken when the epoch advances.
        var epoch: UInt64 = 1
        guard mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        var allocated = 0
        var size = MemoryLayout<Int>.size
        guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return nil }
        return allocated
    }

    /// jemalloc's `mallctl(name, oldp, oldlenp, newp, newlen)`.
    private typealias Mallctl = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int) -> Int32
    /// glibc's `malloc_trim(pad)`.
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    private enum Allocator {
        case jemalloc(Mallctl)
        case glibc(MallocTrim)
        case other
    }

    /// The allocator in use: the library `malloc` is bound to (a sanitizer's own, in a sanitized
    /// build, is neither), with its entry points found once — `<malloc.h>` and jemalloc's header
    /// are not part of Swift's Glibc module.
    private static let allocator: Allocator = {
        #if canImport(Glibc)
        let process = UnsafeMutableRawPointer(bitPattern: 0)
        let malloc = dlsym(process, "malloc")
        /// `name` from `library` when that library is loaded and its `malloc` is the one in use.
        func entry(_ name: String, of library: String) -> UnsafeMutableRawPointer? {
            guard let handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD) else { return nil }
            defer { dlclose(handle) }
            return dlsym(handle, "malloc") == malloc ? dlsym(handle, name) : nil
        }
        if let mallctl = entry("mallctl", of: "libjemalloc.so.2") {
            return .jemalloc(unsafeBitCast(mallctl, to: Mallctl.self))
        }
        if let trim = entry("malloc_trim", of: "libc.so.6") {
            return .glibc(unsafeBitCast(trim, to: MallocTrim.self))
        }
        #endif
        return .other
    }()
}
