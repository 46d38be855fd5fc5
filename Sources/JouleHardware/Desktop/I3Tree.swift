import JouleWire

/// A `DesktopSnapshot` from sway's or i3's GET_TREE reply. Pure.
///
/// Windows are the leaf containers of each workspace (tiled and floating). A workspace is
/// shown when it comes first in its parent's `focus` list (each output shows one); the
/// scratchpad (`__i3_scratch`) is never shown and its windows are hidden. The pid is the tree's
/// `pid` (sway, for Wayland and Xwayland views; i3 has none, so it is nil there); the window
/// with `focused` true has the focus. Dock areas (i3bar) hold no app windows and are skipped.
public enum I3Tree {
    public static func snapshot(from payload: [UInt8]) throws(I3IPCError) -> DesktopSnapshot {
        let root: JSONValue
        do {
            root = try JSONParser.parse(payload)
        } catch {
            throw .badJSON(error.description)
        }
        guard case .object = root else { throw .unexpected("the tree is not a JSON object") }
        var windows: [DesktopWindow] = []
        try walk(root, workspace: nil, into: &windows)
        return DesktopSnapshot(windows: windows)
    }

    private struct Workspace {
        var shown: Bool
        var scratchpad: Bool
    }

    private static func walk(_ node: JSONValue, workspace: Workspace?, into windows: inout [DesktopWindow]) throws(I3IPCError) {
        let children = try Self.children(node, "nodes") + Self.children(node, "floating_nodes")
        let type = node["type"]?.stringValue ?? "con"
        if type == "dockarea" { return }
        if children.isEmpty, let workspace, type == "con" || type == "floating_con" {
            guard let id = node["id"]?.intValue else { throw .unexpected("a window without an integer id") }
            let pid = node["pid"]?.intValue.flatMap { $0 > 0 && $0 <= Int(Int32.max) ? Int32($0) : nil }
            windows.append(
                DesktopWindow(
                    id: UInt64(bitPattern: Int64(id)), pid: pid, isFocused: node["focused"]?.boolValue ?? false,
                    isHidden: workspace.scratchpad, isOnCurrentWorkspace: workspace.shown))
            return
        }
        // The workspace this node shows among its workspace children: the first of them in its focus order.
        let focus = node["focus"]?.arrayValue?.compactMap(\.intValue) ?? []
        let workspaceIDs = Set(children.filter { $0["type"]?.stringValue == "workspace" }.compactMap { $0["id"]?.intValue })
        let shownID = focus.first { workspaceIDs.contains($0) }
        for child in children {
            var context = workspace
            if child["type"]?.stringValue == "workspace" {
                let scratchpad = child["name"]?.stringValue == "__i3_scratch"
                let id = child["id"]?.intValue
                context = Workspace(shown: !scratchpad && id != nil && id == shownID, scratchpad: scratchpad)
            }
            try walk(child, workspace: context, into: &windows)
        }
    }

    private static func children(_ node: JSONValue, _ key: String) throws(I3IPCError) -> [JSONValue] {
        guard let value = node[key], !value.isNull else { return [] }
        guard let array = value.arrayValue else { throw .unexpected("\"\(key)\" is not an array") }
        for child in array {
            guard case .object = child else { throw .unexpected("an element of \"\(key)\" is not an object") }
        }
        return array
    }
}
