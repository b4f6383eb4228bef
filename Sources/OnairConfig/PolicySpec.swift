import OnairControl

/// What viewers see when an input stops delivering.
public struct InputLossPolicy: Hashable, Sendable {
    /// Silence after which the input counts as lost, ms.
    public var afterMs: Int
    /// How long the last frame is repeated before the slate, ms.
    public var holdLastFrameMs: Int
    /// The slate.
    public var slate: VisualSpec

    /// 2 s, then the last frame for 3 s, then black.
    public static let standard = InputLossPolicy(afterMs: 2000, holdLastFrameMs: 3000, slate: .color(0))

    static func decode(_ node: ConfigNode?, context: DecodingContext) -> InputLossPolicy {
        guard let node, let reader = ObjectReader(node, ConfigSchema.inputLoss, subject: "input_loss", context: context) else { return .standard }
        var policy = InputLossPolicy.standard
        policy.afterMs = reader.duration("after")?.value ?? policy.afterMs
        policy.holdLastFrameMs = reader.duration("hold_last_frame")?.value ?? policy.holdLastFrameMs
        if let slate = reader.object("slate", ConfigSchema.visual, subject: "slate of input_loss"), let visual = VisualSpec(reader: slate) {
            if case .source(let name) = visual {
                context.log.error("slate-source", "the slate can't be a source (it shows when sources fail)", at: name.location,
                                  suggestion: "use image:, video: or color:")
            }
            policy.slate = visual
        }
        return policy
    }
}
