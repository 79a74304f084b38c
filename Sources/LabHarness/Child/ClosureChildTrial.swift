import Foundation

/// The child side of a closure child trial: a test process relaunched to run one assertion's
/// body alone. The parent names the call site in an environment variable; the copy of the test
/// that reaches that site runs the body and exits, and every other site in the copy does
/// nothing.
public enum ClosureChildTrial {
    /// Names the call site (`fileID:line:column`) whose body the child runs.
    public static let siteVariable = "LAB_CLOSURE_TRIAL_SITE"

    /// The site this process was launched to run, when it is a child trial.
    public static var requestedSite: String? {
        ProcessInfo.processInfo.environment[siteVariable]
    }

    /// The identifier of a call site, as the parent and the child both spell it.
    public static func siteKey(_ site: FailureSite) -> String {
        "\(site.fileID):\(site.line):\(site.column)"
    }

    /// In the child, at the requested site: binds the child to its parent, makes stdout
    /// unbuffered (so output before a hang or crash reaches the parent), runs `body`, and exits
    /// 0 when it returns, 1 when it throws. Never returns. It exits through `exit`, not `_exit`,
    /// so that exit handlers run: a harness failure the body could not record
    /// (`UnattendedFailure`) turns the status non-zero.
    public static func runBodyAndExit(_ body: () throws -> Void) -> Never {
        ChildLifeline.bindToParent()
        do {
            try body()
        } catch {
            Terminal.writeError("the body threw: \(error)\n")
            fflush(nil)
            _exit(1)
        }
        ChildProtocol.sendResult("returned")
        fflush(nil)
        exit(0)
    }
}
