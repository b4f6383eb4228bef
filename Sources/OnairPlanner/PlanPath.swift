import Foundation

extension URL {
    /// `path` as the engine opens it and validation checks it: plan paths are relative to the
    /// project (this URL), unless written absolute.
    public func resolvingPlanPath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        // Joined as text: validate resolves every input of every plan it checks.
        let root = self.path
        return root.hasSuffix("/") ? root + path : root + "/" + path
    }
}
