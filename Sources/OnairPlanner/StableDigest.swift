/// A 64-bit digest of text that is the same in every process and on every machine (Swift's
/// `Hasher` is seeded per process): FNV-1a. For naming files and noticing changes, not for
/// security.
public enum StableDigest {
    /// FNV-1a 64 of `text`'s UTF-8 bytes.
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// The digest as 16 hex digits.
    public static func hex(_ text: String) -> String {
        let hex = String(fnv1a(text), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
