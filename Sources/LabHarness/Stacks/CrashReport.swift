import Foundation

/// Reads the Swift runtime's crash report (the backtracer's `*** Program crashed: … ***` on
/// stderr) for the thread that crashed, as the harness prints a hang's threads.
///
/// The backtracer lists every thread (`Thread 4 "name" crashed:` for the one that did), each
/// frame as `N [ra] 0xADDRESS symbol + offset in image at /path/file.swift:5:99`, then the
/// registers and the loaded images. A failure that quoted the report's last lines quoted the
/// list of images; the crashing thread's frames are what the author needs.
public enum CrashReport {
    /// `1 thread (crashed: name): in CheckedContinuation.resume ← closure in fetch (main.swift:5)
    /// ← …`, or `nil` when `stderr` holds no backtracer report naming a crashed thread.
    public static func crashingThread(in stderr: String, depth: Int = HangStacks.authorDepth) -> String? {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix(" crashed:") }) else {
            return nil
        }
        var name = "crashed thread"
        if let open = lines[header].firstIndex(of: "\""), let close = lines[header].lastIndex(of: "\""), open < close {
            name = "crashed: " + lines[header][lines[header].index(after: open)..<close]
        }
        var frames: [String] = []
        for line in lines[(header + 1)...] {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { if frames.isEmpty { continue } else { break } }
            guard let frame = frame(from: text) else { if text == "..." { break }; continue }
            frames.append(frame)
        }
        guard !frames.isEmpty else { return nil }
        let group = StackGroup(threads: [ThreadStack(thread: name, tid: 0, state: "?", frames: frames)], frames: frames)
        return group.summary(depth: depth, placesEveryFrame: true)
    }

    /// `2 [ra] 0x… closure #1 in fetch() + 64 in tr at /tmp/tr/main.swift:5:99` → `closure #1
    /// in fetch() (main.swift:5)`; a frame without a source place → `symbol (in image)`, the
    /// form the harness's own stacks give library frames.
    static func frame(from text: String) -> String? {
        var words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = words.first, Int(first) != nil else { return nil }
        words.removeFirst()
        while let word = words.first, word.hasPrefix("[") { words.removeFirst() }  // [ra], [thunk], [inlined]
        guard let address = words.first, address.hasPrefix("0x") else { return nil }
        words.removeFirst()
        let rest = words.joined(separator: " ")
        var symbol = rest
        var place: String?
        if let at = rest.range(of: " at ", options: .backwards) {
            let location = rest[at.upperBound...]
            symbol = String(rest[..<at.lowerBound])
            let file = (String(location) as NSString).lastPathComponent
            let parts = file.split(separator: ":")
            if parts.count >= 2, parts[0].contains(".") { place = "\(parts[0]):\(parts[1])" }
        }
        var image = ""
        if let inImage = symbol.range(of: " in ", options: .backwards) {
            image = String(symbol[inImage.upperBound...])
            symbol = String(symbol[..<inImage.lowerBound])
        }
        if let plus = symbol.range(of: " + ", options: .backwards), symbol[plus.upperBound...].allSatisfy(\.isNumber) {
            symbol = String(symbol[..<plus.lowerBound])
        }
        if let place { return "\(symbol) (\(place))" }
        return "\(symbol) (in \(image.isEmpty ? "?" : image))"
    }
}
