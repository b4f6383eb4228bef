import CFFmpeg
import Foundation
import Synchronization

/// How a stop request or a timeout reaches a libav call blocked in network I/O.
///
/// libav polls `AVFormatContext.interrupt_callback` while it waits on a socket; this object is
/// what the callback reads. Arm a deadline before each blocking call (`arm(timeout:)`) and
/// disarm after; `requestStop()` ends every current and future blocking call at once.
public final class Interruption: Sendable {
    private struct State {
        var stopped = false
        var deadline: UInt64?
    }

    private let state = Mutex(State())

    /// A fresh, unarmed interruption.
    public init() {}

    /// Makes every blocking call return (with `AVERROR_EXIT`) as soon as libav next polls.
    public func requestStop() {
        state.withLock { $0.stopped = true }
    }

    /// Whether a stop was requested.
    public var isStopRequested: Bool { state.withLock { $0.stopped } }

    /// Interrupts blocking calls that are still running `timeout` from now.
    public func arm(timeout: Duration) {
        let nanoseconds = UInt64(max(0, timeout.components.seconds)) * 1_000_000_000
            + UInt64(max(0, timeout.components.attoseconds / 1_000_000_000))
        state.withLock { $0.deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds }
    }

    /// Removes the deadline.
    public func disarm() {
        state.withLock { $0.deadline = nil }
    }

    /// Whether a call polling now should give up; true after a stop or past the deadline.
    var shouldInterrupt: Bool {
        state.withLock { state in
            state.stopped || state.deadline.map { DispatchTime.now().uptimeNanoseconds > $0 } ?? false
        }
    }

    /// Whether the deadline (not a stop) is what interrupted.
    public var deadlinePassed: Bool {
        state.withLock { state in state.deadline.map { DispatchTime.now().uptimeNanoseconds > $0 } ?? false }
    }

    /// The callback structure libav polls; `self` must outlive every context it is given to.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<Interruption>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}

/// An `AVDictionary` built from key/value options, freed on deinit.
final class OptionDictionary {
    var pointer: OpaquePointer?

    init(_ options: [(String, String)]) {
        for (key, value) in options { av_dict_set(&pointer, key, value, 0) }
    }

    deinit {
        av_dict_free(&pointer)
    }
}
