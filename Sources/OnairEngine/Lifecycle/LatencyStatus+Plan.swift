import OnairControl
import OnairPlanner

extension LatencyStatus {
    /// The estimate of `destination` in `estimate`, with `queuedMs` waiting in its queue.
    init(_ estimate: LatencyEstimate, destination: String, queuedMs: Int) {
        let planned = estimate.destinations.first { $0.destination == destination }
        self.init(onairMs: estimate.onairMs, queuedMs: queuedMs, platformMs: planned?.platformMs, totalMs: planned?.totalMs.map { $0 + queuedMs },
                  viewer: planned?.viewer)
    }
}
