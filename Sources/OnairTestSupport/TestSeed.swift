import Foundation

/// The seed of a test whose inputs are random: a fresh one each run, or `ONAIR_TEST_SEED` to
/// replay a run. The test prints it when it starts and names it in every failure it records, so
/// that any failure can be replayed:
///
///     ONAIR_TEST_SEED=12345 swift test --filter FontFaceTests
public struct TestSeed: Sendable, CustomStringConvertible {
    /// The environment variable that fixes the seed.
    public static let variable = "ONAIR_TEST_SEED"

    /// The seed.
    public let value: UInt64
    /// Which test it seeds, for the printed line.
    public let test: String

    /// `ONAIR_TEST_SEED` when set (a decimal number), else a fresh random seed; printed at once.
    public init(for test: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.test = test
        // Fresh seeds fit in 32 bits: short to copy from a log, and any tool takes them.
        value = environment[Self.variable].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64(UInt32.max))
        print("\(test): random inputs from seed \(value) (replay with \(Self.variable)=\(value))")
    }

    /// What a failure message says, so the run can be replayed.
    public var description: String { "seed \(value), replay with \(Self.variable)=\(value)" }

    /// A generator that gives the same numbers for the same seed.
    public func generator() -> SeededGenerator { SeededGenerator(seed: value) }
}

/// SplitMix64: a small generator whose whole sequence follows from its seed (Swift's
/// `SystemRandomNumberGenerator` can't be seeded).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// The generator whose numbers follow from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
