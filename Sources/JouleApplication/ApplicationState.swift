// This one type re-exported, nothing else of JouleWire: an app that imports JouleApplication
// alone can name it and its cases, also under the MemberImportVisibility feature.
@_exported import enum JouleWire.AppLifecycleState

/// Where the app stands in its lifecycle, as joule reports it in every event's `state`
/// (`active`, `inactive`, `background`, `suspended`, `terminated`; the raw values are the words
/// on the socket). JouleWire's `AppLifecycleState`, the one definition joule uses too; the old
/// name stays so apps' sources keep compiling. `isForeground` is true for `active` and
/// `inactive`, the only states where `backgroundTimeRemaining` is nil.
public typealias ApplicationState = AppLifecycleState
