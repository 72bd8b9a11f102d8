import Testing
@testable import StrataLog

@Test func errorDescriptionNamesFileAndOffset() {
    let error = StrataError(.corrupt, "bad checksum", path: "/s/segments/000001.seg", offset: 42)
    #expect(error.description.contains("000001.seg"))
    #expect(error.description.contains("42"))
}
