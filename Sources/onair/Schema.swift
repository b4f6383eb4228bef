import ArgumentParser
import OnairConfig

/// `onair schema`: JSON Schema for editors.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the JSON Schema of pipeline (default) or preset files, for editor completion.")

    @Argument(help: "pipeline or presets.")
    var kind: JSONSchema.FileKind = .pipeline

    func run() throws {
        print(JSONSchema.document(for: kind), terminator: "")
    }
}

extension JSONSchema.FileKind: ExpressibleByArgument {}
