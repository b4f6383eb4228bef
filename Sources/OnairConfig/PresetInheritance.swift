/// What a mapping took through `extends:` from the user's presets: which presets, and every
/// location written in them. A problem found at one of those locations may be one a preset's
/// own check has already reported.
struct PresetInheritance: Sendable {
    /// The user presets the mapping extends, directly or through others, nearest first.
    var presets: [PresetLibrary.PresetID] = []
    /// Every location written in those presets.
    var locations: Set<SourceLocation> = []
}

/// What each user preset's standalone check reported, so that a mapping extending the preset
/// does not report the same mistake again in its own name.
///
/// Every user preset is checked on its own before anything extends it, and there a mistake is
/// reported under the name of the preset that writes it. A mapping that extends the preset
/// meets the same value again and would report it under its own name, at the same line: one
/// mistake, told once per path that reaches it.
struct StandaloneReports: Sendable {
    private var byPreset: [PresetLibrary.PresetID: Set<Diagnostic.Key>] = [:]

    /// Records what the standalone check of `preset` reported.
    mutating func record(_ keys: Set<Diagnostic.Key>, for preset: PresetLibrary.PresetID) {
        byPreset[preset] = keys
    }

    /// The problems a mapping with `inheritance` would only repeat: those reported by the
    /// standalone check of a preset it extends, at a location it inherits. A problem the
    /// mapping's own values bring about (a cap it lowers below an inherited bitrate) has a key
    /// no such check reported, so it is not among them.
    func alreadyReported(through inheritance: PresetInheritance) -> Set<Diagnostic.Key> {
        var keys: Set<Diagnostic.Key> = []
        for preset in inheritance.presets {
            keys.formUnion(byPreset[preset, default: []].filter { inheritance.locations.contains($0.location) })
        }
        return keys
    }
}
