import Foundation
import Synchronization

/// A status line on stderr that rewrites itself while a run goes on.
///
/// It appears only when stderr is a terminal and only once the run has taken a second (quick
/// runs stay quiet), refreshes ten times a second from its own thread, and erases itself when
/// finished so the report that follows starts on a clean line.
public final class ProgressLine: Sendable {
    private let render: @Sendable () -> String
    private let enabled: Bool
    /// Whether the terminal takes escape sequences: not when `TERM` is `dumb` (an editor's
    /// shell, a serial console), where the line is erased by overwriting it with spaces.
    private let escapes: Bool
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let shown = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - enabled: defaults to "stderr is a terminal".
    ///   - render: the current line's text (it is cut to the terminal's width).
    public init(
        enabled: Bool = Terminal.isTTY(2), escapes: Bool = Terminal.escapesAllowed(),
        render: @escaping @Sendable () -> String
    ) {
        self.enabled = enabled
        self.escapes = escapes
        self.render = render
    }

    /// What erases the current line: the "erase line" sequence, or, without escapes, spaces
    /// over `width` columns between carriage returns.
    func erase(width: Int) -> String {
        escapes ? "\r\u{1B}[2K" : "\r" + String(repeating: " ", count: max(0, width)) + "\r"
    }

    public func start() {
        guard enabled, !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        NamedThread.startInstrument("lab.progress") { [self] in
            let begin = MonotonicClock.now()
            while !stopping.load(ordering: .acquiring) {
                MonotonicClock.sleep(for: 0.1)
                guard MonotonicClock.now() - begin >= 1, !stopping.load(ordering: .acquiring) else { continue }
                let width = Terminal.width(fd: 2) - 1
                var text = render()
                if displayWidth(text) > width { text = String(text.prefix(max(width - 1, 10))) + "…" }
                Terminal.writeError(erase(width: width) + text)
                shown.store(true, ordering: .relaxed)
            }
            done.signal()
        }
    }

    /// Stops refreshing and erases the line.
    public func finish() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        _ = done.wait(timeout: .now() + .seconds(1))
        if shown.load(ordering: .relaxed) { Terminal.writeError(erase(width: Terminal.width(fd: 2) - 1)) }
    }
}
