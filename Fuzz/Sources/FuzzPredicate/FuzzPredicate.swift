import StrataFuzzing

/// libFuzzer's entry for the `predicate` target (`make fuzz`); the work is in
/// `FuzzTarget.predicate`, which the corpus replay test also calls.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let finding = FuzzTarget.predicate.run(bytes) { fatalError(finding.description) }
    return 0
}
