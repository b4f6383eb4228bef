import Foundation

extension URL {
    /// `path` as the engine opens it: plan paths are relative to the project (this URL),
    /// unless written absolute.
    func resolvingPlanPath(_ path: String) -> String {
        path.hasPrefix("/") ? path : appendingPathComponent(path).path
    }
}
