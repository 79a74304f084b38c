import Foundation
import LabHarness

/// How much of its time a thread wanted a CPU: time on a CPU plus time waiting in the run
/// queue for one (Linux keeps it in `/proc/thread-self/schedstat`; see `PlatformSeam`).
///
/// CPU time alone understates a busy loop on a loaded machine: a spinning thread that shares
/// two cores with two other busy processes gets about two thirds of a core. Runnable time does
/// not depend on the load: a busy loop is runnable all the time, a sleeper almost never.
struct RunnableTime: Sendable {
    var onCPU: Seconds
    var waiting: Seconds
    var total: Seconds { onCPU + waiting }

    /// The calling thread's figures so far; `nil` where the platform does not keep them.
    static func currentThread() -> RunnableTime? {
        HostPlatform.currentThreadRunnableTime().map { RunnableTime(onCPU: $0.onCPU, waiting: $0.waiting) }
    }
}
