/// The Swift runtime's own messages, read out of the evidence a crashed or warned trial left
/// (its stderr, the trap's text), so a verdict can quote the runtime instead of a file path.
public enum RuntimeMessage {
    /// The runtime's `SWIFT TASK CONTINUATION MISUSE: profiles(for:) tried to resume its
    /// continuation more than once` line in `text`, without the file prefix before it and
    /// whatever follows `end` (when given and found); `text` unchanged when it has no such line.
    public static func continuationMisuse(in text: String, endingWith end: String? = nil) -> String {
        guard let start = text.range(of: "SWIFT TASK CONTINUATION MISUSE") else { return text }
        let tail = text[start.lowerBound...]
        guard let end, let stop = tail.range(of: end) else { return String(tail) }
        return String(tail[..<stop.upperBound])
    }
}
