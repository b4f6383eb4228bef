/// A picture used as a background, avatar or slate.
public enum VisualSpec: Hashable, Sendable {
    /// A still image file.
    case image(AssetPath)
    /// A video file.
    case video(AssetPath, loop: Bool)
    /// A source of the pipeline.
    case source(Located<String>)
    /// A solid colour (0xRRGGBB).
    case color(Int)

    /// Decodes a picture mapping: exactly one of image, video, source, color.
    init?(reader: ObjectReader) {
        let written = ["image", "video", "source", "color"].filter { reader[$0] != nil }
        guard written.count == 1 else {
            reader.context.log.error(
                written.isEmpty ? "missing-key" : "conflicting-keys",
                written.isEmpty ? "\(reader.subject) needs one of 'image:', 'video:', 'source:' or 'color:'"
                    : "\(reader.subject) has both " + written.map { "'\($0)'" }.joined(separator: " and "),
                at: reader.node.location, suggestion: "keep exactly one")
            return nil
        }
        switch written[0] {
        case "image":
            guard let path = reader.path("image", mustExist: true) else { return nil }
            self = .image(path)
        case "video":
            guard let path = reader.path("video", mustExist: true) else { return nil }
            self = .video(path, loop: reader.boolean("loop")?.value ?? true)
        case "source":
            guard let name = reader.reference("source") else { return nil }
            self = .source(name)
        default:
            guard let color = reader.color("color") else { return nil }
            self = .color(color.value)
        }
    }
}

/// Where a picture sits on the canvas.
public struct Placement: Hashable, Sendable {
    /// Anchor keyword such as `bottom-right`.
    public var position: String
    /// Explicit left edge, overriding the anchor horizontally.
    public var x: Int?
    /// Explicit top edge, overriding the anchor vertically.
    public var y: Int?
    /// Relative size (meaning depends on the user: see the schema).
    public var scale: Double
    /// Distance from the edges, in pixels.
    public var margin: Int

    /// Creates a placement.
    public init(position: String, x: Int? = nil, y: Int? = nil, scale: Double, margin: Int) {
        self.position = position
        self.x = x
        self.y = y
        self.scale = scale
        self.margin = margin
    }

    init(reader: ObjectReader?, default fallback: Placement) {
        guard let reader else {
            self = fallback
            return
        }
        self.init(
            position: reader.choice("position")?.value ?? fallback.position,
            x: reader.integer("x")?.value, y: reader.integer("y")?.value,
            scale: reader.number("scale")?.value ?? fallback.scale,
            margin: reader.integer("margin")?.value ?? fallback.margin)
    }
}

/// Green-screen keying settings.
public struct ChromaKey: Hashable, Sendable {
    /// Screen colour, 0xRRGGBB.
    public var color: Int
    /// Similarity threshold.
    public var similarity: Double
    /// Edge softness.
    public var blend: Double
    /// Spill suppression strength (0 = off).
    public var spill: Double

    /// The defaults for a green screen.
    public static let greenScreen = ChromaKey(color: 0x00FF00, similarity: 0.25, blend: 0.08, spill: 0.2)
}

/// One way of composing the scene.
public struct OverlaySpec: Hashable, Sendable {
    /// The three combinations creators pick between.
    public enum Kind: Hashable, Sendable {
        /// A keyed person over a background.
        case virtualBackground(person: Located<String>, background: VisualSpec, key: ChromaKey, placement: Placement)
        /// The camera as is, with optional automatic lighting (strength 0…1).
        case realScene(camera: Located<String>, autoLighting: Double?)
        /// A scene with an avatar over it.
        case sceneAvatar(scene: Located<String>, avatar: VisualSpec, placement: Placement)
    }

    /// Its name.
    public var name: String
    /// Where it was defined.
    public var location: SourceLocation
    /// What it composes.
    public var kind: Kind
    /// How the sound is pitched while it is on air (scene-avatar only).
    public var voice: VoiceSpec?

    /// The camera of `combination` as it is (its lead source, no lighting correction): what goes
    /// on air, with the layers, while the combination has failed (overlay fallback). Nil for a
    /// combination that is already the camera as it is.
    public static func cameraAsIs(of combination: OverlaySpec) -> OverlaySpec? {
        if case .realScene(_, nil) = combination.kind { return nil }
        var camera = combination
        camera.name = combination.name + " (camera)"
        camera.kind = .realScene(camera: combination.leadSource, autoLighting: nil)
        camera.voice = nil
        return camera
    }

    /// The source whose camera leads the combination (its default audio).
    public var leadSource: Located<String> {
        switch kind {
        case .virtualBackground(let person, _, _, _): person
        case .realScene(let camera, _): camera
        case .sceneAvatar(let scene, _, _): scene
        }
    }

    /// Every source name the combination refers to.
    public var sourceReferences: [Located<String>] {
        var names = [leadSource]
        switch kind {
        case .virtualBackground(_, .source(let name), _, _), .sceneAvatar(_, .source(let name), _): names.append(name)
        default: break
        }
        return names
    }

    /// Decodes a combination whose `extends:` has been resolved.
    init?(name: String, node: ConfigNode, location: SourceLocation, context: DecodingContext) {
        let subject = "overlay combination '\(name)'"
        guard let reader = ObjectReader(node, ConfigSchema.overlay, subject: subject, context: context),
              let kindName = reader.kind?.value else { return nil }
        switch kindName {
        case "virtual-background":
            guard let person = reader.reference("person"),
                  let backgroundReader = reader.object("background", ConfigSchema.visual, subject: "background of \(subject)"),
                  let background = VisualSpec(reader: backgroundReader) else { return nil }
            var key = ChromaKey.greenScreen
            if let keyReader = reader.object("key", ConfigSchema.chromaKey) {
                key.color = keyReader.color("color")?.value ?? key.color
                key.similarity = keyReader.number("similarity")?.value ?? key.similarity
                key.blend = keyReader.number("blend")?.value ?? key.blend
                key.spill = keyReader.number("spill")?.value ?? key.spill
            }
            let placement = Placement(reader: reader.object("placement", ConfigSchema.placement),
                                      default: Placement(position: "bottom", scale: 1, margin: 0))
            kind = .virtualBackground(person: person, background: background, key: key, placement: placement)
        case "real-scene":
            guard let camera = reader.reference("camera") else { return nil }
            kind = .realScene(camera: camera, autoLighting: reader.booleanOrNumber("auto_lighting", whenTrue: 0.5)?.value ?? nil)
        default:
            guard let scene = reader.reference("scene"),
                  let avatarReader = reader.object("avatar", ConfigSchema.visual, subject: "avatar of \(subject)"),
                  let avatar = VisualSpec(reader: avatarReader) else { return nil }
            let placement = Placement(reader: reader.object("placement", ConfigSchema.placement),
                                      default: Placement(position: "bottom-right", scale: 0.33, margin: 32))
            kind = .sceneAvatar(scene: scene, avatar: avatar, placement: placement)
            // A bad voice is reported where it is written; the combination is still checked.
            voice = reader["voice"].flatMap { VoiceSpec(node: $0, subject: subject, context: context) }
        }
        self.name = name
        self.location = location
    }
}
