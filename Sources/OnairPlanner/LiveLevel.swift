import Foundation
import OnairConfig

/// A mix as the engine steers it on air: each member's `volume` filter, addressed by its
/// instance name, with the level the pipeline gives it. Listed in the plan so the engine (and
/// the status) know every level an operator may change without reading the spec.
public struct PlannedMix: Codable, Equatable, Sendable {
    /// A member of the mix and where its level is set.
    public struct Member: Codable, Equatable, Sendable {
        /// The source (or mix) heard.
        public var name: String
        /// Its level as the pipeline writes it, dB.
        public var gainDB: Double
        /// Written `mute: true`.
        public var muted: Bool
        /// The instance name of its `volume` filter (`volume@mix.program.music`).
        public var target: String
    }

    /// The mix's name.
    public var name: String
    /// Its members, in the order written.
    public var members: [Member]

    /// The member called `name`.
    public func member(_ name: String) -> Member? { members.first { $0.name == name } }
}

/// A level changing on air without a click: linear gain ramped from `from` to `to` over
/// ``length`` from `start` (µs of media time). A member's `volume` filter evaluates it once a
/// frame (``LiveLevel/frameSamples`` samples), an encoder's destination mute once a sample.
public struct GainRamp: Equatable, Sendable {
    /// Linear gain before the ramp.
    public var from: Double
    /// Linear gain after it.
    public var to: Double
    /// Where the ramp begins, µs of media time.
    public var start: Int64
    /// How long it takes, µs: long enough that no step is a click, short enough to land at once.
    public static let length: Int64 = 32_000

    /// A ramp from `from` to `to` beginning at `start`.
    public init(from: Double, to: Double, start: Int64) {
        self.from = from
        self.to = to
        self.start = start
    }

    /// A level that does not move.
    public static func steady(_ gain: Double) -> GainRamp { GainRamp(from: gain, to: gain, start: 0) }

    /// Where the ramp ends, µs.
    public var end: Int64 { start + Self.length }

    /// The gain at `micros`.
    public func gain(at micros: Int64) -> Double {
        let progress = min(1, max(0, Double(micros - start) / Double(Self.length)))
        return from + (to - from) * progress
    }

    /// The same ramp as a libavfilter expression of the frame's time `t` (seconds), for the
    /// `volume` filter's `volume` command (its `eval=frame` evaluates it on every frame).
    public var expression: String {
        if from == to { return Self.number(to) }
        let start = Self.number(Double(self.start) / 1_000_000), length = Self.number(Double(Self.length) / 1_000_000)
        return "\(Self.number(from))+(\(Self.number(to - from)))*clip((t-\(start))/\(length),0,1)"
    }

    /// A linear gain from a level in dB (0 when muted).
    public static func linear(decibels: Double, muted: Bool = false) -> Double {
        muted ? 0 : pow(10, decibels / 20)
    }

    private static func number(_ value: Double) -> String {
        String(format: "%.6f", value)
    }
}

/// Where a level changed on air lives in a graph.
public enum LiveLevel {
    /// Samples per frame of a mix member's chain, so a ramp evaluated once a frame moves in
    /// steps of 2.7 ms at 48 kHz: twelve steps over ``GainRamp/length``.
    public static let frameSamples = 128

    /// The instance name of member `member`'s `volume` filter in mix `mix` (`mix.program.music`).
    public static func instance(mix: String, member: String) -> String {
        "mix." + instanceSafe(mix) + "." + instanceSafe(member)
    }

    /// What a command to that filter names (`volume@mix.program.music`).
    public static func target(mix: String, member: String) -> String {
        "volume@" + instance(mix: mix, member: member)
    }

    /// `name` with every character libavfilter's parser might read as syntax replaced by `_`.
    private static func instanceSafe(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}
