import Testing
@testable import Strata

@Test func strataReexportsError() {
    let error = StrataError(.corrupt, "bad checksum", path: "/s/segments/000001.seg", offset: 42)
    #expect(error.description.contains("000001.seg"))
    #expect(error.description.contains("42"))
}
