import Foundation

/// Renders the configuration schema as JSON Schema (draft-07) for editors such as VS Code with
/// the YAML extension (`# yaml-language-server: $schema=…`).
public enum JSONSchema {
    /// The two kinds of file.
    public enum FileKind: String, CaseIterable, Sendable {
        case pipeline, presets
    }

    /// The schema document for a kind of file, with sorted keys so it is stable in git.
    public static func document(for kind: FileKind) -> String {
        let root = kind == .pipeline ? ConfigSchema.pipeline : ConfigSchema.presetFile
        var document = object(root)
        document["$schema"] = "http://json-schema.org/draft-07/schema#"
        document["title"] = kind == .pipeline ? "onair pipeline" : "onair presets"
        let data = try! JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func object(_ schema: ObjectSchema) -> [String: Any] {
        if schema.variants.isEmpty {
            return closedObject(schema.allowedFields(kind: nil), required: schema.extensible ? [] : schema.fields.filter(\.required).map(\.name), doc: schema.doc)
        }
        var branches: [[String: Any]] = schema.variants.map { variant in
            var fields = schema.allowedFields(kind: variant.kind)
            if let index = fields.firstIndex(where: { $0.name == "kind" }) {
                fields[index] = FieldSchema("kind", .choice([variant.kind]), variant.doc)
            }
            let required = ["kind"] + (schema.fields + variant.fields).filter(\.required).map(\.name)
            return closedObject(fields, required: required, doc: variant.doc)
        }
        if schema.extensible {
            branches.append(closedObject(schema.allowedFields(kind: nil), required: ["extends"], doc: "Builds on a preset with `extends:`."))
        }
        // anyOf, not oneOf: a mapping with both `extends:` and `kind:` may match two branches.
        return ["description": schema.doc, "type": "object", "anyOf": branches]
    }

    static func closedObject(_ fields: [FieldSchema], required: [String], doc: String) -> [String: Any] {
        var properties: [String: Any] = [:]
        for field in fields {
            var value = type(field.type)
            value["description"] = field.doc
            properties[field.name] = value
        }
        var result: [String: Any] = ["type": "object", "description": doc, "properties": properties, "additionalProperties": false]
        if !required.isEmpty { result["required"] = required }
        return result
    }

    static func type(_ value: ValueType) -> [String: Any] {
        switch value {
        case .text, .reference, .path: return ["type": "string"]
        case .integer(let range): return ["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound]
        case .number(let range): return ["type": "number", "minimum": range.lowerBound, "maximum": range.upperBound]
        case .boolean: return ["type": "boolean"]
        case .bitrate: return ["anyOf": [["type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?[kKmM]?(bps)?$"], ["type": "integer", "minimum": Units.smallestBareBitrate]]]
        case .duration: return ["type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$"]
        case .color: return ["type": "string", "pattern": "^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$"]
        case .size: return ["type": "string", "pattern": "^[0-9]+x[0-9]+$"]
        case .aspect: return ["type": "string", "pattern": "^[0-9]+:[0-9]+$"]
        case .listenAddress: return ["type": "string", "pattern": "^(\\[[0-9A-Fa-f:.%]+\\]|[A-Za-z0-9.\\-_]+):[0-9]{1,5}$"]
        case .choice(let words):
            let numbers = words.compactMap { Int($0) }
            return numbers.count == words.count ? ["enum": numbers] : ["enum": words]
        case .object(let schema): return object(schema)
        case .map(let inner): return ["type": "object", "additionalProperties": type(inner)]
        case .list(let inner): return ["type": "array", "items": type(inner)]
        case .nameOrObject(_, let schema, let alternatives): return ["anyOf": [["type": "string"], object(schema)] + alternatives.map(object)]
        case .countOrUnlimited(let range): return ["anyOf": [["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound], ["const": "unlimited"]]]
        case .booleanOrNumber(let range): return ["anyOf": [["type": "boolean"], ["type": "number", "minimum": range.lowerBound, "maximum": range.upperBound]]]
        case .decibels(let range):
            return ["anyOf": [["type": "number", "minimum": range.lowerBound, "maximum": range.upperBound], ["type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)? ?dB$"]]]
        case .actionTime:
            return ["type": "string", "pattern": "^(\\+[0-9]+(\\.[0-9]+)?(ms|s|m|h)|[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2}))$"]
        }
    }
}
