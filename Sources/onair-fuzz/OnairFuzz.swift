import Foundation
import OnairFuzzing

/// libFuzzer's entry point (built with `-sanitize=fuzzer`, see `scripts/fuzz`): runs one input
/// and stops the process, which libFuzzer records as a crash with the input, when it breaks an
/// invariant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let violations = FuzzSession.target.run(data).violations
    if !violations.isEmpty {
        FileHandle.standardError.write(Data(("onair-fuzz: invariant broken\n" + violations.map { "  \($0)\n" }.joined()).utf8))
        abort()
    }
    return 0
}

/// Called by libFuzzer before it reads its flags: the tool's commands work in the fuzzing build
/// too (`onair-fuzz dictionary`), so the script needs no other build.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    if let status = OnairFuzz.command(Array(CommandLine.arguments.dropFirst())) { exit(status) }
    return 0
}

/// The commands beside fuzzing: what the fuzzing script needs from the same code (the dictionary
/// and the seeds) and a replay of inputs (a finding, a corpus) through the same target and
/// invariants, without libFuzzer. Without `-D LIBFUZZER` they are the executable's only use.
enum OnairFuzz {
    static let usage = """
        usage: onair-fuzz dictionary          print the libFuzzer dictionary, generated from the schema
               onair-fuzz seeds FOLDER        write the seed inputs into FOLDER
               onair-fuzz check PATH...       run inputs (files, or folders of them), print their
                                              diagnostics and broken invariants; exit 1 if any broke
               onair-fuzz [LIBFUZZER FLAGS] [CORPUS...]   fuzz (in the build scripts/fuzz makes)
        The shipped project is ONAIR_FUZZ_PROJECT, else the working directory.
        """

    /// Runs the command `arguments` name and returns its exit status; nil when they name none.
    static func command(_ arguments: [String]) -> Int32? {
        switch (arguments.first, arguments.count) {
        case ("dictionary", 1):
            print(FuzzDictionary.text, terminator: "")
            return 0
        case ("seeds", 2):
            do {
                try FuzzSeeds.write(shipped: FuzzSession.shipped, to: URL(fileURLWithPath: arguments[1]))
                return 0
            } catch {
                FileHandle.standardError.write(Data("onair-fuzz: cannot write the seeds: \(error)\n".utf8))
                return 1
            }
        case ("check", 2...):
            return check(arguments.dropFirst().flatMap(files(at:))) ? 0 : 1
        case ("help", _), ("-h", _), ("--help", _):
            print(usage)
            return 0
        default:
            return nil
        }
    }

    /// Runs every input; true when none broke an invariant.
    static func check(_ inputs: [URL]) -> Bool {
        var broken = 0
        for url in inputs {
            guard let data = FileManager.default.contents(atPath: url.path) else {
                print("\(url.path): cannot read")
                broken += 1
                continue
            }
            let outcome = FuzzSession.target.run(data)
            print("\(url.path): \(outcome.diagnostics.count) diagnostic(s), \(outcome.plans.count) plan(s)"
                + (outcome.violations.isEmpty ? "" : ", \(outcome.violations.count) invariant(s) broken"))
            for diagnostic in outcome.diagnostics { print("  \(diagnostic)") }
            for violation in outcome.violations { print("  BROKEN \(violation)") }
            if !outcome.violations.isEmpty { broken += 1 }
        }
        print("\(inputs.count) input(s), \(broken) broke an invariant")
        return broken == 0
    }

    /// A file, or the files of a folder.
    static func files(at path: String) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [URL(fileURLWithPath: path)]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { URL(fileURLWithPath: path).appendingPathComponent($0) }
    }
}

#if !LIBFUZZER
/// Without libFuzzer the executable runs the commands only.
@main
struct OnairFuzzCommand {
    static func main() {
        guard let status = OnairFuzz.command(Array(CommandLine.arguments.dropFirst())) else {
            FileHandle.standardError.write(Data((OnairFuzz.usage + "\n").utf8))
            exit(2)
        }
        exit(status)
    }
}
#endif
