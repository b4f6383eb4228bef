import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What this process uses: CPU time so far, resident memory and live allocations now. The
/// run's metrics and its record sample it.
public struct ProcessUsage: Sendable {
    /// User and system CPU time since the process started.
    public var cpuSeconds: Double
    /// Resident set size.
    public var residentBytes: Int
    /// Bytes in live allocations, when the allocator says (jemalloc, in the onair executable).
    public var allocatedBytes: Int?

    /// Now.
    public static func now() -> ProcessUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(cpuSeconds: cpu, residentBytes: residentBytes(), allocatedBytes: ProcessAllocator.allocatedBytes)
    }

    /// From /proc/self/statm (resident pages × page size); the peak from getrusage elsewhere.
    private static func residentBytes() -> Int {
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { return pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
