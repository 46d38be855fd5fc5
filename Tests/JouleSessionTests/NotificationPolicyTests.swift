import JouleHardware
import JouleSession
import Testing

/// The policy alone: episodes, replacement, closing, switches.
struct NotificationPolicyTests {
    func kinds(_ commands: [NotificationCommand]) -> [String] {
        commands.map { command in
            switch command {
            case .show(let kind, let content): "show \(kind.rawValue) \(content.summary)"
            case .close(let kind): "close \(kind.rawValue)"
            case .end(let kind): "end \(kind.rawValue)"
            }
        }
    }

    @Test func theUsersOwnChoicesAreNotAnnounced() {
        var policy = NotificationPolicy()
        #expect(policy.handle(.lowPowerMode(on: true, reason: "manual-on")).isEmpty)
        #expect(policy.handle(.lowPowerMode(on: true, reason: "power-saver-profile")).isEmpty)
        #expect(policy.handle(.lowPowerMode(on: false, reason: "manual-off")).isEmpty)
    }

    @Test func anAutomaticEpisodeEndsWithItsOwnNotificationLeftUp() {
        var policy = NotificationPolicy()
        #expect(kinds(policy.handle(.lowPowerMode(on: true, reason: "battery-low"))) == ["show lowPowerMode Low Power Mode turned on"])
        #expect(kinds(policy.handle(.lowPowerMode(on: false, reason: "charged"))) == ["show lowPowerMode Low Power Mode turned off", "end lowPowerMode"])
        #expect(policy.handle(.lowPowerMode(on: false, reason: "manual-off")).isEmpty)
    }

    @Test func theSameStateTwiceShowsOnceAndClearingClosesOnce() {
        var policy = NotificationPolicy()
        #expect(policy.handle(.thermalState("serious")).count == 1)
        #expect(policy.handle(.thermalState("serious")).isEmpty)
        #expect(kinds(policy.handle(.thermalState("nominal"))) == ["close thermal"])
        #expect(policy.handle(.thermalState("fair")).isEmpty)
        #expect(policy.handle(.warningLevel("none", percentage: nil)).isEmpty)
    }

    @Test func lowBatteryOffersLowPowerModeOnlyWhileItIsOff() {
        var policy = NotificationPolicy()
        _ = policy.handle(.lowPowerMode(on: true, reason: "manual-on"))
        guard case .show(_, let content)? = policy.handle(.warningLevel("low", percentage: 10)).first else {
            Issue.record("no notification")
            return
        }
        #expect(content.actions.isEmpty && content.body == "Plug in soon. 10 % left.")
    }

    @Test func aSwitchedOffKindShowsNothingAndTransfersAreOffByDefault() {
        var switches = NotificationSwitches()
        switches.cpuMonitor = false
        var policy = NotificationPolicy(switches: switches)
        #expect(policy.handle(.cpuMonitorKill(process: "x", reportID: "r")).isEmpty)
        #expect(policy.handle(.transferBatchFinished(completed: 1, failed: 0)).isEmpty)
        #expect(policy.handle(.thermalState("critical")).count == 1)
    }

    @Test func eachTransferBatchIsShownEvenWithTheLastOnesCounts() {
        var switches = NotificationSwitches()
        switches.transfers = true
        var policy = NotificationPolicy(switches: switches)
        let first = policy.handle(.transferBatchFinished(completed: 2, failed: 0))
        #expect(first == [.show(.transfers, NotificationContent(summary: "2 background transfers finished", body: "All completed.", urgency: 0))])
        #expect(policy.handle(.transferBatchFinished(completed: 2, failed: 0)) == first, "the next batch, not a repeat")
        #expect(policy.handle(.transferBatchFinished(completed: 1, failed: 1)) == [
            .show(.transfers, NotificationContent(summary: "2 background transfers finished", body: "1 completed, 1 failed.", urgency: 1)),
        ])
        #expect(kinds(policy.handle(.transferBatchFinished(completed: 0, failed: 1))) == ["show transfers 1 background transfer finished"])
        #expect(policy.handle(.transferBatchFinished(completed: 0, failed: 0)).isEmpty)
    }
}
