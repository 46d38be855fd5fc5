import ArgumentParser

/// A library value that can be written on the command line; parsing stays in the library type.
protocol CommandLineSpec: Sendable {
    associatedtype SpecError: Error & CustomStringConvertible
    static func parse(spec: String) -> Result<Self, SpecError>
}

/// An option's value, parsed once while the arguments are read. A bad value is kept as its
/// error and reported by the command's `validate()` in the library's own words, which
/// ArgumentParser's "The value … is invalid" message would replace.
struct Spec<Value: CommandLineSpec>: ExpressibleByArgument, Sendable {
    let text: String
    let parsed: Result<Value, Value.SpecError>

    init(argument: String) {
        text = argument
        parsed = Value.parse(spec: argument)
    }

    var defaultValueDescription: String { text }

    var value: Value? { try? parsed.get() }

    /// Throws the library's message for a bad value.
    func check(_ message: (Value.SpecError) -> String = \.description) throws {
        if case .failure(let error) = parsed { throw ValidationError(message(error)) }
    }
}
