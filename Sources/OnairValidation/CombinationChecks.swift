import OnairConfig
import OnairPlanner

/// What validating one pipeline found: planning it with its `active:` combination, and each
/// other overlay combination both as `onair run --overlay` starts with it and as a live switch
/// puts it on air (keeping the starting sound), so a combination kept for later is as
/// trustworthy as the active one.
public struct PipelineFindings: Sendable {
    /// What planning the pipeline as written reported.
    public var active: [Diagnostic]
    /// What planning with another combination on air reported, by combination, in order.
    public var others: [(overlay: String, diagnostics: [Diagnostic])]

    /// Reports the findings into `log`: what only another combination gets wrong says so
    /// ("… (when overlay combination 'slides' is on air)"); the rest was reported already.
    public func report(into log: DiagnosticLog) {
        active.forEach(log.report)
        for (overlay, diagnostics) in others {
            for var diagnostic in diagnostics where !log.contains(diagnostic) {
                diagnostic.message += " (when overlay combination '\(overlay)' is on air)"
                log.report(diagnostic)
            }
        }
    }
}

/// The one loop over a pipeline's overlay combinations: every way each goes on air, planned and
/// checked by the same ``CheckedPlanner``, for `validate` (what each reports) and for `run`
/// (what each puts on air).
extension CheckedPlanner {
    /// Plans `pipeline` with each of its combinations on air, every way it can be: the findings
    /// `onair validate` reports.
    public func findings(for pipeline: PipelineSpec) -> PipelineFindings {
        var findings = PipelineFindings(active: planned(pipeline).diagnostics, others: [])
        for overlay in pipeline.overlays where overlay.name != pipeline.active.value {
            for way in pipeline.waysOnAir(overlay.name) {
                findings.others.append((overlay.name, planned(way).diagnostics))
            }
        }
        return findings
    }

    /// Every combination of `pipeline`, in written order, as a live switch from `onAir` puts it
    /// on air: `onAir` is the plan the run starts with, planned from `pipeline` itself (its
    /// `active:` is the combination on air). One whose plan needs other encoders than `onAir`
    /// (its pictures or sound differ) can't go on air.
    public func combinations(of pipeline: PipelineSpec, onAir: PipelinePlan) -> [PlannedCombination] {
        pipeline.overlays.enumerated().map { index, overlay in
            var combination = switched(to: overlay, number: index + 1, of: pipeline, onAir: onAir)
            if combination.plan != nil { combination.fallback = fallback(of: overlay, in: pipeline, onAir: onAir) }
            return combination
        }
    }

    /// `spec` planned and checked, with everything that reported.
    func planned(_ spec: PipelineSpec) -> (plan: PipelinePlan?, diagnostics: [Diagnostic]) {
        let log = DiagnosticLog()
        let plan = plan(spec, log: log)
        return (plan, log.all)
    }

    /// `overlay`, planned the way a live switch puts it on air.
    private func switched(to overlay: OverlaySpec, number: Int, of pipeline: PipelineSpec, onAir: PipelinePlan) -> PlannedCombination {
        if overlay.name == onAir.activeOverlay { return PlannedCombination(name: overlay.name, number: number, plan: onAir) }
        let (plan, diagnostics) = pipeline.switchedLive(to: overlay.name).map(planned) ?? (nil, [])
        if let error = diagnostics.sorted(by: Diagnostic.reportOrder).first(where: { $0.severity == .error }) {
            return PlannedCombination(name: overlay.name, number: number, problem: "\(error.message) (\(error.location))")
        }
        guard let plan else { return PlannedCombination(name: overlay.name, number: number, problem: "it does not compile") }
        guard plan.renditions == onAir.renditions else {
            return PlannedCombination(name: overlay.name, number: number,
                                      problem: "it needs different encoders (its sound or pictures differ); restart with --overlay \(overlay.name)")
        }
        return PlannedCombination(name: overlay.name, number: number, plan: plan)
    }

    /// The plan of the camera of `overlay` as it is, switched to live from `onAir`.
    private func fallback(of overlay: OverlaySpec, in pipeline: PipelineSpec, onAir: PipelinePlan) -> PipelinePlan? {
        guard let camera = OverlaySpec.cameraAsIs(of: overlay) else { return nil }
        var spec = pipeline
        spec.overlays.append(camera)
        guard let switched = spec.switchedLive(to: camera.name), let plan = planned(switched).plan,
              plan.renditions == onAir.renditions else { return nil }
        return plan
    }
}
