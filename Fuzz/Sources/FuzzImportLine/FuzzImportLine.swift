import StrataFuzzing

/// libFuzzer's entry for the `import-line` target (`make fuzz`); the work is in
/// `FuzzTarget.importLine`, which the corpus replay test also calls.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let finding = FuzzTarget.importLine.run(bytes) { fatalError(finding.description) }
    return 0
}
