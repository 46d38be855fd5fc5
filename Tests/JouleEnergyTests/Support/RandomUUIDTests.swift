import Foundation
import Testing
@testable import JouleEnergy

@Suite struct RandomUUIDTests {
    @Test func fixedBitsGiveTheVersionAndVariant() {
        #expect(RandomUUID.format(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
        #expect(RandomUUID.format(high: .max, low: .max) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
        #expect(
            RandomUUID.format(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210)
                == "01234567-89ab-4def-bedc-ba9876543210")
    }

    /// Foundation's parser agrees on every field, and 1 000 draws never repeat.
    @Test func randomIdentifiersAreWellFormedAndDistinct() throws {
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let text = RandomUUID.lowercase()
            let parsed = try #require(UUID(uuidString: text))
            #expect(parsed.uuidString.lowercased() == text)
            #expect(parsed.uuid.6 >> 4 == 4)
            #expect(parsed.uuid.8 >> 6 == 0b10)
            seen.insert(text)
        }
        #expect(seen.count == 1_000)
    }
}
