import Foundation
import JouleHardware
import JouleTesting
import Testing

@Suite struct I3TreeTests {
    /// sway 1.7's GET_TREE (headless): alpha focused on workspace 1, beta in the scratchpad,
    /// gamma on workspace 2, which is not shown.
    static func swayTree() throws -> [UInt8] {
        Array(try Data(contentsOf: PackageRoot.url.appendingPathComponent("hw-fixtures/desktop/sway-1.7-tree.json")))
    }

    @Test func aRealSwayTree() throws {
        let snapshot = try I3Tree.snapshot(from: Self.swayTree())
        #expect(
            snapshot.windows == [
                DesktopWindow(id: 8, pid: 14466, isFocused: false, isHidden: true, isOnCurrentWorkspace: false),
                DesktopWindow(id: 7, pid: 14462, isFocused: true, isHidden: false, isOnCurrentWorkspace: true),
                DesktopWindow(id: 9, pid: 14476, isFocused: false, isHidden: false, isOnCurrentWorkspace: false),
            ])
    }

    /// i3's layout: workspaces under each output's "content" con, dock areas beside it, floating
    /// windows wrapped in a floating_con, and no pid.
    @Test func anI3ShapedTree() throws {
        let tree = """
            {"id":1,"type":"root","nodes":[
              {"id":2,"type":"output","name":"__i3","focus":[3],"nodes":[
                {"id":3,"type":"con","name":"content","focus":[4],"nodes":[
                  {"id":4,"type":"workspace","name":"__i3_scratch","nodes":[],"floating_nodes":[]}]}]},
              {"id":5,"type":"output","name":"eDP-1","focus":[6],"nodes":[
                {"id":6,"type":"con","name":"content","focus":[8,7],"nodes":[
                  {"id":7,"type":"workspace","name":"1","nodes":[
                    {"id":10,"type":"con","window":4194307,"focused":false,"nodes":[],"floating_nodes":[]}],
                   "floating_nodes":[]},
                  {"id":8,"type":"workspace","name":"2","nodes":[
                    {"id":11,"type":"con","layout":"splitv","nodes":[
                      {"id":12,"type":"con","window":4194310,"focused":true,"nodes":[],"floating_nodes":[]}]}],
                   "floating_nodes":[
                    {"id":13,"type":"floating_con","nodes":[
                      {"id":14,"type":"con","window":4194315,"focused":false,"nodes":[],"floating_nodes":[]}]}]}]},
                {"id":9,"type":"dockarea","name":"topdock","nodes":[
                  {"id":15,"type":"con","window":4194320,"nodes":[],"floating_nodes":[]}]}]}]}
            """
        let snapshot = try I3Tree.snapshot(from: Array(tree.utf8))
        #expect(
            snapshot.windows == [
                DesktopWindow(id: 10, pid: nil, isFocused: false, isHidden: false, isOnCurrentWorkspace: false),
                DesktopWindow(id: 12, pid: nil, isFocused: true, isHidden: false, isOnCurrentWorkspace: true),
                DesktopWindow(id: 14, pid: nil, isFocused: false, isHidden: false, isOnCurrentWorkspace: true),
            ])
    }

    @Test func badTreesAreTypedErrors() {
        #expect(throws: I3IPCError.self) { try I3Tree.snapshot(from: Array("{\"nodes\":[".utf8)) }
        #expect(throws: I3IPCError.self) { try I3Tree.snapshot(from: Array("[1,2]".utf8)) }
        #expect(throws: I3IPCError.self) { try I3Tree.snapshot(from: Array("{\"nodes\":{}}".utf8)) }
        #expect(throws: I3IPCError.self) { try I3Tree.snapshot(from: Array("{\"nodes\":[3]}".utf8)) }
        #expect(throws: I3IPCError.self) {
            try I3Tree.snapshot(from: Array(#"{"nodes":[{"type":"workspace","id":1,"nodes":[{"type":"con"}]}]}"#.utf8))
        }
        #expect(throws: I3IPCError.self) { try I3Tree.snapshot(from: []) }
    }
}
