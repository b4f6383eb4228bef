/// What each user preset's standalone check reported, so that a mapping extending the preset
/// does not report the same mistake again in its own name.
///
/// Every user preset is checked on its own before anything extends it, and there a mistake is
/// reported under the name of the preset that writes it. A mapping that extends the preset
/// meets the same value again and would report it under its own name, at the same line: one
/// mistake, told once per path that reaches it.
struct StandaloneReports: Sendable {
    private var byPreset: [PresetLibrary.PresetID: Set<Diagnostic.Key>] = [:]

    /// Records what the standalone check of `preset` reported in the mappings it is written
    /// with (`written`: its own and those it extends): only those can a mapping extending it
    /// meet again.
    mutating func record(_ keys: Set<Diagnostic.Key>, for preset: PresetLibrary.PresetID, writtenIn written: [ConfigNode]) {
        // Most presets are clean: no need to gather every location they are written at.
        guard !keys.isEmpty else {
            byPreset[preset] = []
            return
        }
        let locations = written.reduce(into: Set<SourceLocation>()) { $0.formUnion($1.locations) }
        byPreset[preset] = keys.filter { locations.contains($0.location) }
    }

    /// The problems a mapping that extends `inherited` would only repeat: those their own
    /// checks reported. A problem the mapping's own values bring about (a cap it lowers below
    /// an inherited bitrate) has a key no such check reported, so it is not among them.
    func alreadyReported(through inherited: [PresetLibrary.PresetID]) -> Set<Diagnostic.Key> {
        inherited.reduce(into: []) { $0.formUnion(byPreset[$1, default: []]) }
    }
}
