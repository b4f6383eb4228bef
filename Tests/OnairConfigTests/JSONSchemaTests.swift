import Foundation
import Testing
@testable import OnairConfig

@Suite("JSON Schema")
struct JSONSchemaTests {
    static func parse(_ kind: JSONSchema.FileKind) throws -> [String: Any] {
        let text = JSONSchema.document(for: kind)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every JSON object in `value`, depth first, with a path for messages.
    static func objects(in value: Any, path: String = "$") -> [(path: String, object: [String: Any])] {
        var found: [(String, [String: Any])] = []
        if let object = value as? [String: Any] {
            found.append((path, object))
            for (key, child) in object { found += objects(in: child, path: path + "." + key) }
        } else if let array = value as? [Any] {
            for (index, child) in array.enumerated() { found += objects(in: child, path: path + "[\(index)]") }
        }
        return found
    }

    /// The kinds offered by a `anyOf` of variants (the `extends:` branch allows any kind, so it names none).
    static func kinds(_ schema: [String: Any]) -> [String] {
        ((schema["anyOf"] as? [[String: Any]]) ?? []).compactMap { branch in
            let kinds = ((branch["properties"] as? [String: Any])?["kind"] as? [String: Any])?["enum"] as? [String]
            return kinds?.count == 1 ? kinds?.first : nil
        }
    }

    @Test(arguments: JSONSchema.FileKind.allCases)
    func documentIsValidJSONAndStable(kind: JSONSchema.FileKind) throws {
        let text = JSONSchema.document(for: kind)
        #expect(text.hasSuffix("}\n"))
        #expect(text == JSONSchema.document(for: kind))
        let root = try Self.parse(kind)
        #expect(root["$schema"] as? String == "http://json-schema.org/draft-07/schema#")
        #expect(root["title"] as? String == (kind == .pipeline ? "onair pipeline" : "onair presets"))
        #expect(root["type"] as? String == "object")
    }

    /// Editors flag unknown keys only if every mapping with known keys is closed.
    @Test(arguments: JSONSchema.FileKind.allCases)
    func everyObjectWithPropertiesIsClosed(kind: JSONSchema.FileKind) throws {
        let all = Self.objects(in: try Self.parse(kind))
        let withProperties = all.filter { $0.object["properties"] is [String: Any] }
        #expect(withProperties.count > 20)
        for (path, object) in withProperties {
            #expect(object["additionalProperties"] as? Bool == false, "\(path) is open")
            #expect(object["type"] as? String == "object", "\(path)")
        }
        // Mappings of user-chosen names say what each value is instead.
        let maps = all.filter { $0.object["type"] as? String == "object" && $0.object["properties"] == nil && $0.object["anyOf"] == nil }
        #expect(!maps.isEmpty)
        for (path, object) in maps {
            #expect(object["additionalProperties"] is [String: Any], "\(path) is a map without a value schema")
        }
    }

    @Test func pipelineSchema() throws {
        let root = try Self.parse(.pipeline)
        let properties = try #require(root["properties"] as? [String: Any])
        #expect(Set(properties.keys) == ["title", "sources", "overlays", "active", "mixes", "audio", "layers", "quality",
                                         "destinations", "retry", "input_loss", "latency", "http", "timezone", "schedule", "notify"])
        #expect(root["required"] as? [String] == ["sources", "overlays", "active", "quality", "destinations"])
        #expect(root["additionalProperties"] as? Bool == false)

        let sources = try #require(properties["sources"] as? [String: Any])
        #expect(sources["type"] as? String == "object")
        let source = try #require(sources["additionalProperties"] as? [String: Any])
        #expect(Self.kinds(source) == ["test", "file", "network", "listen", "device"])
        let file = try #require((source["anyOf"] as? [[String: Any]])?[1])
        #expect(file["required"] as? [String] == ["kind", "path"])
        let fileProperties = try #require(file["properties"] as? [String: Any])
        #expect(Set(fileProperties.keys) == ["kind", "size", "fps", "path", "loop"])

        let destinations = try #require(properties["destinations"] as? [String: Any])
        let destination = try #require(destinations["additionalProperties"] as? [String: Any])
        #expect(Self.kinds(destination) == ["platform", "url", "record", "hls"])
        let branches = try #require(destination["anyOf"] as? [[String: Any]])
        #expect(branches.count == 5)
        #expect(branches.last?["required"] as? [String] == ["extends"])
        let anyKind = ((branches.last?["properties"] as? [String: Any])?["kind"] as? [String: Any])?["enum"] as? [String]
        #expect(anyKind == ["platform", "url", "record", "hls"])
        #expect(branches[0]["required"] as? [String] == ["kind", "platform", "key"])
        let platformKey = try #require(((branches[0]["properties"] as? [String: Any])?["key"] as? [String: Any]))
        #expect(Set(((platformKey["properties"] as? [String: Any]) ?? [:]).keys) == ["env", "file"])

        let overlays = try #require((properties["overlays"] as? [String: Any])?["additionalProperties"] as? [String: Any])
        #expect(Self.kinds(overlays) == ["virtual-background", "real-scene", "scene-avatar"])
        let layers = try #require(properties["layers"] as? [String: Any])
        #expect(layers["type"] as? String == "array")
        #expect(Self.kinds(try #require(layers["items"] as? [String: Any])) == ["image", "text", "pip"])

        // quality: a preset's name or an inline mapping.
        let quality = try #require((properties["quality"] as? [String: Any])?["anyOf"] as? [[String: Any]])
        #expect(quality.first?["type"] as? String == "string")
        #expect(quality.last?["type"] as? String == "object")
    }

    @Test func valuePatternsMatchTheUnits() throws {
        let root = try Self.parse(.pipeline)
        let all = Self.objects(in: root)
        func pattern(at suffix: String) throws -> String {
            let found = try #require(all.first { $0.path.hasSuffix(suffix) }?.object["pattern"] as? String, "\(suffix)")
            return found
        }
        let durations = try pattern(at: ".retry.properties.initial_delay")
        let colours = try pattern(at: ".properties.slate.properties.color")
        let aspects = try pattern(at: ".properties.canvas.properties.aspect")
        let times = try pattern(at: ".schedule.items.properties.at")
        for (regex, good, bad) in [(durations, ["2s", "500ms", "1.5s", "2m"], ["2", "2 s", "s"]),
                                   (times, ["18:00", "18:00:30", "+5m", "+1.5s", "2026-12-01T18:00:00+01:00", "2026-12-01T17:00:00Z"],
                                    ["18", "5m", "-5m", "2026-12-01T18:00:00", "18h00"]),
                                   (colours, ["#00FF00", "#0f0"], ["green", "00FF00", "#00FF0"]),
                                   (aspects, ["9:16", "16:9"], ["9/16", "916"])] {
            for text in good { #expect(text.range(of: regex, options: .regularExpression) != nil, "\(text) ~ \(regex)") }
            for text in bad { #expect(text.range(of: regex, options: .regularExpression) == nil, "\(text) !~ \(regex)") }
        }
    }

    @Test func presetsSchema() throws {
        let root = try Self.parse(.presets)
        let properties = try #require(root["properties"] as? [String: Any])
        #expect(Set(properties.keys) == ["quality", "overlays", "destinations", "platforms", "schedules", "notify"])
        #expect(root["required"] == nil)
        let quality = try #require((properties["quality"] as? [String: Any])?["additionalProperties"] as? [String: Any])
        // Presets may leave out required keys when they extend another.
        #expect(quality["required"] == nil)
        #expect((quality["properties"] as? [String: Any])?["extends"] != nil)
        let platform = try #require((properties["platforms"] as? [String: Any])?["additionalProperties"] as? [String: Any])
        #expect(Set(((platform["properties"] as? [String: Any]) ?? [:]).keys) ==
                ["title", "ingest", "orientation", "video", "keyframes", "audio", "latency", "loudness", "extends"])
    }

    /// The schemas committed at the top of the repository are what `onair schema` prints today.
    @Test(arguments: [(JSONSchema.FileKind.pipeline, "onair.schema.json"), (.presets, "onair-presets.schema.json")])
    func committedSchemaIsUpToDate(kind: JSONSchema.FileKind, file: String) throws {
        let url = ShippedProjectTests.repositoryRoot.appendingPathComponent(file)
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == JSONSchema.document(for: kind), "regenerate with: onair schema \(kind.rawValue) > \(file)")
    }
}
