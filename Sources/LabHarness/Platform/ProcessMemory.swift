import Foundation

/// How much memory this process holds, as the kernel counts it.
///
/// Linux keeps the resident-set high-water mark in `/proc/self/status` (`VmHWM`, in kB): the most
/// physical memory the process ever held at once, whoever allocated it. That is the figure a
/// trial that creates 100,000 timers should be judged by, because it cannot miss a short peak
/// the way a sampler would. It covers the process's whole life, so a trial judged by it runs in
/// a process of its own. Darwin reports `ru_maxrss` (bytes there, kB on Linux), used as a fallback.
public enum ProcessMemory {
    /// Peak resident memory of this process in megabytes (2^20 bytes), or `nil` if unknown.
    public static func peakResidentMB() -> Double? {
        #if os(Linux)
        if let kB = statusField("VmHWM:") { return kB / 1024 }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss > 0 ? Double(usage.ru_maxrss) / 1024 : nil
        #elseif canImport(Darwin)
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return usage.ru_maxrss > 0 ? Double(usage.ru_maxrss) / 1_048_576 : nil
        #else
        return nil
        #endif
    }

    /// Resident memory right now, in megabytes (`VmRSS`); `nil` where the platform does not tell.
    public static func currentResidentMB() -> Double? {
        #if os(Linux)
        return statusField("VmRSS:").map { $0 / 1024 }
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The number after `key` on its line of `/proc/self/status` (a size in kB).
    static func statusField(_ key: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return parseStatusField(key, in: text)
    }
    #endif

    /// The number after `key` in a `/proc/*/status` text such as `VmHWM:\t  12345 kB`.
    public static func parseStatusField(_ key: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let number = line.dropFirst(key.count).drop { !$0.isNumber }.prefix { $0.isNumber }
            return Double(String(number))
        }
        return nil
    }
}
