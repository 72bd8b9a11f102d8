import Testing

@Test func placeholderCLI() { #expect(Bool(true)) }
