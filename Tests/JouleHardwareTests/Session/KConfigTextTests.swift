import JouleHardware
import Testing

struct KConfigTextTests {
    static let text = "[General]\nA=1\n\n[KDE]\nSingleClick = false\n\n[Icons]\nTheme=breeze\n"

    @Test func readsAKeyInItsGroupOnly() {
        #expect(KConfigText.value(in: Self.text, group: "KDE", key: "SingleClick") == "false")
        #expect(KConfigText.value(in: Self.text, group: "KDE", key: "Theme") == nil)
        #expect(KConfigText.value(in: Self.text, group: "Nope", key: "A") == nil)
    }

    @Test func setAndRemoveGiveTheSameBytesBack() {
        let set = KConfigText.setting("0", in: Self.text, group: "KDE", key: "AnimationDurationFactor")
        #expect(set == "[General]\nA=1\n\n[KDE]\nSingleClick = false\nAnimationDurationFactor=0\n\n[Icons]\nTheme=breeze\n")
        #expect(KConfigText.setting(nil, in: set, group: "KDE", key: "AnimationDurationFactor") == Self.text)
        #expect(KConfigText.setting("1", in: Self.text, group: "KDE", key: "SingleClick") == Self.text.replacingOccurrences(of: "SingleClick = false", with: "SingleClick=1"))
    }

    @Test func aMissingGroupIsAppendedAndRemovedAgain() {
        for original in ["", "[General]\nA=1\n", "[General]\nA=1"] {
            let set = KConfigText.setting("0", in: original, group: "KDE", key: "AnimationDurationFactor")
            #expect(KConfigText.value(in: set, group: "KDE", key: "AnimationDurationFactor") == "0")
            let back = KConfigText.setting(nil, in: set, group: "KDE", key: "AnimationDurationFactor")
            #expect(back == original || back == original + "\n", "\(original.debugDescription) → \(set.debugDescription) → \(back.debugDescription)")
        }
    }
}
