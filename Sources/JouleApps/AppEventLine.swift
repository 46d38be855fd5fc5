import JouleWire
import JouleHardware

/// One line of `joule app events --json`:
/// `{"timestamp","app","pid","event","state","detail"}`, in that order; the timestamp in Unix
/// seconds (3 decimals), an unknown pid and a missing detail as null.
package struct AppEventLine: Sendable, Hashable {
    package var app: String
    package var pid: Int32?
    package var notice: AppLifecycleNotice

    package init(app: String, pid: Int32?, notice: AppLifecycleNotice) {
        self.app = app
        self.pid = pid
        self.notice = notice
    }

    package var json: JSONValue {
        .object([
            "timestamp": .from(notice.time, places: 3),
            "app": .string(app),
            "pid": .from(pid.map(Int.init)),
            "event": .string(notice.event.name),
            "state": .string(notice.state.name),
            "detail": .from(notice.detail),
        ])
    }
}
