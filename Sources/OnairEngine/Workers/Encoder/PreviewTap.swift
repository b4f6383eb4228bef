import AVBridge
import Foundation
import OnairControl
import OnairPlanner
import OnairThreads
import Synchronization

/// Preview pictures of one rendition: what its destinations receive, after crop and layers.
///
/// The encoder offers every picture it encodes; one is taken — by reference, no copy — only
/// when somebody asked for a picture and the last one is at least a second old, and it is
/// scaled down and made a JPEG on a thread of its own. Nobody asking costs one lock per picture.
final class PreviewTap: Sendable {
    /// A finished preview.
    struct Picture: Sendable {
        var jpeg: Data
        var width: Int
        var height: Int
        /// When the picture was taken from the encoder (wall clock).
        var capturedAt: Date
        /// The same, on the monotonic clock (how old it is).
        var taken: Double
    }

    private struct State {
        /// Requests waiting for the next picture.
        var waiters: [UInt64: CheckedContinuation<Result<Picture, PreviewError>, Never>] = [:]
        var nextWaiter: UInt64 = 0
        /// A picture is being made.
        var capturing = false
        var latest: Picture?
        /// The encoder has ended: no picture will come.
        var closed = false
        /// Made on the first capture; used by one capture thread at a time (see `capturing`).
        var encoder: Transfer<JPEGEncoder>?
    }

    /// The shortest time between two pictures.
    static let interval = 1.0

    private let rendition: Rendition
    private let state = Mutex(State())
    /// Where its capture threads start: the run's.
    private let threads: RunThreads

    init(rendition: Rendition, threads: RunThreads) {
        self.rendition = rendition
        self.threads = threads
    }

    /// Called on the encoder's thread with each picture it encoded.
    func offer(_ frame: Frame) {
        let take = state.withLock { state -> Bool in
            guard !state.waiters.isEmpty, !state.capturing else { return false }
            state.capturing = true
            return true
        }
        guard take else { return }
        // A new reference to the same picture, handed over to the capture thread: only it uses it.
        guard let reference = try? frame.reference() else {
            state.withLock { $0.capturing = false }
            return
        }
        let picture = Transfer(reference)
        let capturedAt = Date(), taken = monotonicSeconds()
        threads.start(named: "preview.\(rendition.id)") { [self] in
            let made = makeJPEG(of: picture.value, capturedAt: capturedAt, taken: taken)
            let waiters = state.withLock { state -> [CheckedContinuation<Result<Picture, PreviewError>, Never>] in
                state.capturing = false
                if case .success(let picture) = made { state.latest = picture }
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: made) }
        }
    }

    private func makeJPEG(of picture: Frame, capturedAt: Date, taken: Double) -> Result<Picture, PreviewError> {
        do {
            let encoder = try state.withLock { $0.encoder.take() }?.value
                ?? JPEGEncoder(sourceWidth: rendition.video.width, sourceHeight: rendition.video.height)
            let kept = Transfer(encoder)
            defer { state.withLock { $0.encoder = kept } }
            return .success(Picture(jpeg: try encoder.encode(picture), width: encoder.width, height: encoder.height,
                                    capturedAt: capturedAt, taken: taken))
        } catch {
            return .failure(.unavailable(reason: "the preview could not be made: \(error)"))
        }
    }

    /// Called when the encoder has ended: a request waiting for a picture is answered at once,
    /// and so is any later one. Left waiting, a request kept the finished run alive (the API
    /// holds it while it answers) after the server had stopped, up to the process' exit.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Picture, PreviewError>, Never>] in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: .failure(Self.ended)) }
    }

    private static let ended = PreviewError.unavailable(reason: "the run has ended")

    /// The latest picture when it is less than a second old; otherwise the next one, waiting
    /// at most `timeout` for it (nothing comes while nothing is being encoded).
    func picture(timeout: Duration) async -> Result<Picture, PreviewError> {
        let now = monotonicSeconds()
        if let fresh = state.withLock({ $0.latest }), now - fresh.taken < Self.interval { return .success(fresh) }
        return await withCheckedContinuation { continuation in
            let id = state.withLock { state -> UInt64? in
                guard !state.closed else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume(returning: .failure(Self.ended)) }
            // Weakly: the tap may go with its run before the timeout.
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                let expired = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
                expired?.resume(returning: .failure(.unavailable(
                    reason: "no picture was encoded within \(timeout) (the run is starting or stopping, or its graph is stalled)")))
            }
        }
    }
}
