/// What a pipeline costs to run in real time: CPU cores and peak memory, estimated from its
/// plan (inputs, filters and the pixels they touch, encoders by preset and pixel rate) with
/// coefficients measured on a reference machine (``CostCoefficients``). Orchestrators size
/// workloads from it (`onair export` turns it into resource requests and limits).
public struct CostEstimate: Codable, Equatable, Sendable {
    /// CPU cores the pipeline keeps busy when it runs at real time: CPU seconds per second of
    /// media, all threads together.
    public var cpuCores: Double
    /// Peak resident memory, bytes, including every network destination's full queue.
    public var memoryBytes: Int
    /// Where the CPU goes, largest first.
    public var cpu: [CostTerm]
    /// Where the memory goes, largest first.
    public var memory: [CostTerm]
    /// The measurements the coefficients come from (machine, date).
    public var calibration: String

    /// Cores as a Kubernetes CPU quantity in millicores, rounded up (`1250m`).
    public var millicores: Int { Int((cpuCores * 1000).rounded(.up)) }
    /// Memory in MiB, rounded up.
    public var mebibytes: Int { (memoryBytes + (1 << 20) - 1) >> 20 }

    /// No estimate (a plan not made by the planner).
    public static let none = CostEstimate(cpuCores: 0, memoryBytes: 0, cpu: [], memory: [], calibration: "")
}

/// One part of a cost: which coefficient, applied to how much work.
public struct CostTerm: Codable, Equatable, Sendable {
    /// The coefficient's name in ``CostCoefficients`` (`x264.veryfast`, `filter.chromakey`,
    /// `decode`…): the calibration script groups terms by it.
    public var component: String
    /// What it is in this pipeline (`r0 1280x720 30fps`, `camera`, `normalize 1280x720`).
    public var detail: String
    /// The work the coefficient multiplies: megapixels per second, frames per second,
    /// channels, megabits per second, or 1 for a fixed cost (see ``CostCoefficients``).
    public var work: Double
    /// Cores (CPU terms) or bytes (memory terms).
    public var amount: Double
}
