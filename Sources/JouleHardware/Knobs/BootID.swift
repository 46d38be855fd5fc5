/// The kernel's identifier of this boot (`/proc/sys/kernel/random/boot_id`): a journal of
/// knob writes from another boot is stale, since the kernel started from its defaults.
public enum BootID {
    public static let path = "/proc/sys/kernel/random/boot_id"

    /// The boot id under `root`, nil when unreadable or empty.
    public static func read(root: FileRoot) -> String? {
        guard let text = try? Syscalls.readText(root.path(path)) else { return nil }
        let value = KnobText.trim(text)
        return value.isEmpty ? nil : value
    }
}
