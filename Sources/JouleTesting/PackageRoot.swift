import Foundation

/// The checkout's root directory (where Package.swift is), for tests that read its fixtures.
public enum PackageRoot {
    public static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
