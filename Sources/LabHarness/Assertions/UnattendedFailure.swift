import Foundation
import Synchronization

/// The last resort for a failure no test framework can take (an assertion called outside any
/// test, or from a thread the framework does not know): one line on stderr, and the process
/// exits non-zero at its end even if everything else passed. A failure is never dropped.
public enum UnattendedFailure {
    private static let installed = Atomic<Bool>(false)

    /// Prints the failure and makes sure the process will not exit 0.
    public static func report(_ message: String, at site: FailureSite) {
        ProcessEnd.say("\(site): error: LabHarness assertion failed with no test to record it: \(message)\n")
        failProcessAtExit()
    }

    /// Makes the process exit 1 at its end, whatever status it exits with: for a failure handed
    /// to a framework that may not count it (an issue Swift Testing can tie to no test lands
    /// nowhere when no test run is going on). The caller says what failed.
    public static func failProcessAtExit() {
        if !installed.exchange(true, ordering: .acquiringAndReleasing) {
            atexit {
                fflush(nil)
                _exit(1)
            }
        }
    }
}
