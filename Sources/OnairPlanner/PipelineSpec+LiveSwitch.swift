import OnairConfig

extension PipelineSpec {
    /// This pipeline as it runs once `overlay` is switched to live, from a run started with
    /// `active:` on air: the combination changes, the sound stays the starting one. Nil when it
    /// has no such combination.
    ///
    /// Without `audio:`, a combination's sound would come from its own lead source, and one
    /// without sound (slides after the camera) would need other encoders — so a combination
    /// switched to keeps the starting sound instead.
    public func switchedLive(to overlay: String) -> PipelineSpec? {
        guard var spec = activating(overlay) else { return nil }
        if spec.audio == nil, let sound = Planner.soundSource(of: self) { spec.audio = Located(sound, at: active.location) }
        return spec
    }

    /// Every way `overlay` can go on air from this pipeline: started with it (`onair run
    /// --overlay`), and switched to live when that differs (it keeps the starting sound).
    public func waysOnAir(_ overlay: String) -> [PipelineSpec] {
        guard let started = activating(overlay) else { return [] }
        guard let switched = switchedLive(to: overlay), switched.audio?.value != started.audio?.value else { return [started] }
        return [started, switched]
    }
}
