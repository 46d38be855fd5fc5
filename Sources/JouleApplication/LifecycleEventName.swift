// This one type re-exported, nothing else of JouleWire: an app that imports JouleApplication
// alone can name it and its cases, also under the MemberImportVisibility feature.
@_exported import enum JouleWire.AppLifecycleEvent

/// The words in an event's `event` key: JouleWire's `AppLifecycleEvent`, the one definition
/// joule uses too; the old name stays so apps' sources keep compiling. An app only ever hears
/// the five whose `isSentToApp` is true; the rest exist in joule's own log and are decoded too,
/// so a newer joule that sends them is not "malformed".
public typealias LifecycleEventName = AppLifecycleEvent
