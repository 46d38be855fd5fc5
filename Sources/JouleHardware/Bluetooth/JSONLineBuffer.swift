import JouleWire

/// A growable byte buffer for writing JSON lines without a String or an allocation per
/// line. The owner drains it (to a file descriptor) when it grows past a threshold, and
/// after each line when streaming live, so readers only ever see whole lines.
public final class JSONLineBuffer {
    /// A computed property: another module reading a stored one gets a dynamic exclusivity
    /// check per read (the attribute below holds only inside this module), once per advert.
    public var count: Int { used }
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var storage: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int

    /// The previous line's whole Unix seconds and their digits: a capture holds thousands of
    /// adverts a second, and formatting those ten digits was the writer's dearest field.
    @exclusivity(unchecked) private var lastSeconds = -1
    @exclusivity(unchecked) private var lastSecondsLength = 0
    private let lastSecondsText = UnsafeMutablePointer<UInt8>.allocate(capacity: 24)

    public init(capacity: Int = 1 << 16) {
        self.capacity = Swift.max(capacity, 1024)
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit {
        storage.deallocate()
        lastSecondsText.deallocate()
    }

    /// Writes the timestamp at the cursor as `LineCursor.timestamp` does, its whole seconds
    /// from the remembered text when they are unchanged.
    func writeTimestamp(_ micros: Int64?, at cursor: inout LineCursor) {
        guard let micros, micros >= 1_000_000 else { return cursor.timestamp(micros) }
        let seconds = Int(micros / 1_000_000)
        if seconds != lastSeconds {
            var text = LineCursor(lastSecondsText)
            text.int(seconds)
            lastSecondsLength = text.p - lastSecondsText
            lastSeconds = seconds
        }
        cursor.p.update(from: lastSecondsText, count: lastSecondsLength)
        cursor.p += lastSecondsLength
        cursor.fraction(Int(micros % 1_000_000))
    }

    /// The buffered bytes, borrowed until the next mutation.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    public func removeAll() { used = 0 }

    /// Makes room for `extra` more bytes.
    func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let newCapacity = Swift.max(capacity * 2, count + extra)
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 8)
        bigger.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = bigger
        capacity = newCapacity
    }

    /// Pointer for writing `extra` bytes at the end; call `commit` with the count written.
    func tail(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        reserve(extra)
        return (storage + count).assumingMemoryBound(to: UInt8.self)
    }

    func commit(_ written: Int) { used += written }

    public func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            reserve(utf8.count)
            if let base = utf8.baseAddress { (storage + used).copyMemory(from: base, byteCount: utf8.count) }
            used += utf8.count
        }
    }

    /// A JSON object as one line, through the reference serializer.
    public func appendLine(_ object: JSONObject) {
        append(JSONValue.object(object).serialized + "\n")
    }
}
