import CLabSupport

/// How much memory this process holds, as the kernel counts it.
///
/// Linux keeps the resident-set high-water mark in `/proc/self/status` (`VmHWM`, in kB): the most
/// physical memory the process ever held at once, whoever allocated it. That is the figure a
/// trial that creates 100,000 timers should be judged by, because it cannot miss a short peak
/// the way a sampler would. It covers the process's whole life, so a trial judged by it runs in
/// a process of its own. Darwin reports `ru_maxrss` (in bytes there, kB on Linux); the C shim
/// reads whichever the platform has (`clab_peak_resident_bytes`).
public enum ProcessMemory {
    /// Peak resident memory of this process in megabytes (2^20 bytes), or `nil` if unknown.
    public static func peakResidentMB() -> Double? {
        megabytes(clab_peak_resident_bytes())
    }

    /// Resident memory right now, in megabytes (Linux `VmRSS`, Darwin the task's
    /// `resident_size`); `nil` where the platform does not tell.
    public static func currentResidentMB() -> Double? {
        megabytes(clab_current_resident_bytes())
    }

    private static func megabytes(_ bytes: Double) -> Double? {
        bytes >= 0 ? bytes / 1_048_576 : nil
    }

    /// The number after `key` in a `/proc/*/status` text such as `VmHWM:\t  12345 kB`.
    public static func parseStatusField(_ key: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let number = line.dropFirst(key.count).drop { !$0.isNumber }.prefix { $0.isNumber }
            return Double(String(number))
        }
        return nil
    }
}
