/// Something wrong with how a filter graph's labels and declared pads fit together, found
/// before libav is asked to configure the graph.
public enum GraphIssue: Sendable, Hashable, CustomStringConvertible {
    /// The description reads label `label` (at an input of `consumer`), which is neither
    /// produced inside the description nor declared as a ``GraphInput``.
    case undeclaredInput(label: String, consumer: FilterInstance?)
    /// An input pad of `consumer` has no label and nothing feeds it.
    case unlabelledInput(consumer: FilterInstance?)
    /// The description produces label `label` (at an output of `producer`), which nothing
    /// inside the description reads and no ``GraphOutput`` declares.
    case undeclaredOutput(label: String, producer: FilterInstance?)
    /// An output pad of `producer` has no label and nothing reads it.
    case unlabelledOutput(producer: FilterInstance?)
    /// A declared ``GraphOutput`` that the description never produces.
    case missingOutput(label: String)
    /// A declared output label that the description produces more than once.
    case duplicateOutput(label: String, producer: FilterInstance?)
    /// A label declared as one kind of media that `filter` takes or gives as the other kind.
    case mediaMismatch(label: String, declared: MediaKind, actual: MediaKind, filter: FilterInstance?)
    /// A label declared more than once among the inputs, or more than once among the outputs.
    case duplicateDeclaration(label: String)
    /// A declaration libav cannot honour (unknown pixel format, zero frame rate...).
    case invalidDeclaration(label: String, reason: String)

    /// The parsed filter the issue is about, when there is one.
    public var filter: FilterInstance? {
        switch self {
        case let .undeclaredInput(_, filter), let .unlabelledInput(filter),
             let .undeclaredOutput(_, filter), let .unlabelledOutput(filter),
             let .duplicateOutput(_, filter), let .mediaMismatch(_, _, _, filter):
            filter
        case .missingOutput, .duplicateDeclaration, .invalidDeclaration:
            nil
        }
    }

    /// One sentence for a person.
    public var description: String {
        func at(_ filter: FilterInstance?) -> String {
            filter.map { " of \($0)" } ?? ""
        }
        switch self {
        case let .undeclaredInput(label, consumer):
            return "input label [\(label)] (read by an input\(at(consumer))) is neither produced in the graph nor declared as an input"
        case let .unlabelledInput(consumer):
            return "an input pad\(at(consumer)) has no label, so nothing feeds it"
        case let .undeclaredOutput(label, producer):
            return "output label [\(label)] (an output\(at(producer))) is neither read in the graph nor declared as an output"
        case let .unlabelledOutput(producer):
            return "an output pad\(at(producer)) has no label, so nothing reads it"
        case let .missingOutput(label):
            return "declared output [\(label)] is never produced by the graph"
        case let .duplicateOutput(label, producer):
            return "output label [\(label)] is produced more than once (again by an output\(at(producer)))"
        case let .mediaMismatch(label, declared, actual, filter):
            return "[\(label)] is declared as \(declared) but the pad\(at(filter)) it connects to is \(actual)"
        case let .duplicateDeclaration(label):
            return "label [\(label)] is declared more than once"
        case let .invalidDeclaration(label, reason):
            return "declaration of [\(label)]: \(reason)"
        }
    }
}
