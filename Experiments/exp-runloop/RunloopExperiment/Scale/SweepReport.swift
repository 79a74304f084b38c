import Foundation
import LabHarness

/// The sweep in the terminal: one table (design × count) and p99 lateness against the count on
/// log axes, so the curves' slopes read at a glance from the back of a room.
enum SweepReport {
    /// Both, or `nil` when the run was not a sweep.
    static func section(_ report: ExperimentReport) -> String? {
        guard let points = report.sweep, !points.isEmpty else { return nil }
        return (table(points) + [""] + chart(points)).joined(separator: "\n")
    }

    static func table(_ points: [SweepPoint]) -> [String] {
        let header = ["design", "requests", "wall/T", "late p50", "p99", "max", "threads+", "peak MB", "CPU s"]
        var rows: [[String]] = []
        for p in points {
            func ms(_ key: String) -> String { p[key].map(Format.milliseconds) ?? "—" }
            rows.append([p.variant, Format.count(Double(p.tasks)),
                         p[RunloopMetric.wallPerTimeout].map { Format.decimal($0, places: 3) } ?? "—",
                         ms(RunloopMetric.latenessP50Ms), ms(RunloopMetric.latenessP99Ms), ms(RunloopMetric.latenessMaxMs),
                         p[RunloopMetric.threadsAdded].map(Format.count) ?? "—",
                         p[RunloopMetric.memoryPeakMb].map { Format.decimal($0, places: 0) } ?? "—",
                         p[RunloopMetric.cpuS].map { Format.decimal($0, places: 2) } ?? "—"])
        }
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.indices.map { i in
                let pad = String(repeating: " ", count: widths[i] - cells[i].count)
                return i == 0 ? cells[i] + pad : pad + cells[i]
            }.joined(separator: "  ")
        }
        var lines = ["sweep: async callers, each point in a process of its own (wall/T: first request issued to last woken, over the timeout)"]
        lines.append("  " + line(header))
        var previous: String?
        for (p, row) in zip(points, rows) {
            if let previous, previous != p.variant { lines.append("") }
            lines.append("  " + line(row))
            previous = p.variant
        }
        if let note = priorityNote(points) { lines.append(note) }
        return lines
    }

    /// What priority the designs' own threads ran at, since it is part of what was measured.
    static func priorityNote(_ points: [SweepPoint]) -> String? {
        let asked = points.filter { $0[RunloopMetric.threadsRealtime] != nil }
        guard !asked.isEmpty else { return nil }
        var names: [String] = []
        for p in asked where !names.contains(p.variant) { names.append(p.variant) }
        let designs = names.joined(separator: ", ")
        let refused = asked.filter { $0[RunloopMetric.threadsRealtime] == 0 }.count
        if refused == 0 { return "  threads of their own (\(designs)): real-time priority (SCHED_FIFO), at every point" }
        if refused == asked.count {
            return "  threads of their own (\(designs)): normal priority, real-time was refused (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)"
        }
        return "  threads of their own (\(designs)): real-time priority refused at \(refused) of \(asked.count) points"
    }

    /// Letters that mark each design in the chart.
    static func mark(_ design: String) -> Character {
        switch design {
        case TimeoutDesignName.sharedThread.rawValue: "s"
        case TimeoutDesignName.deadlineHeap.rawValue: "h"
        case TimeoutDesignName.dispatchTimer.rawValue: "d"
        case TimeoutDesignName.taskSleep.rawValue: "t"
        default: "?"
        }
    }

    /// p99 lateness (ms, log rows, two per decade) against requests (log columns).
    static func chart(_ points: [SweepPoint]) -> [String] {
        let values = points.compactMap { p in p[RunloopMetric.latenessP99Ms].map { (p, max($0, 0.01)) } }
        guard let lowest = values.map(\.1).min(), let highest = values.map(\.1).max() else { return [] }
        let counts = Array(Set(points.map(\.tasks))).sorted()
        let bottom = floor(log10(lowest)), top = max(ceil(log10(highest)), bottom + 1)
        let rows = Int((top - bottom) * 2) + 1
        let columnWidth = 9
        var grid = [[Character]](repeating: [Character](repeating: " ", count: counts.count * columnWidth), count: rows)
        for (p, value) in values {
            guard let column = counts.firstIndex(of: p.tasks) else { continue }
            let row = rows - 1 - Int(((log10(value) - bottom) * 2).rounded())
            var x = column * columnWidth + columnWidth / 2
            while grid[row][x] != " " && x < (column + 1) * columnWidth - 1 { x += 1 }
            grid[row][x] = mark(p.variant)
        }
        var lines = ["p99 lateness against requests (log-log; s shared-thread, h deadline-heap, d dispatch-timer, t task-sleep):"]
        for (i, row) in grid.enumerated() {
            let exponent = top - Double(i) / 2
            let label = i % 2 == 0 ? Format.milliseconds(pow(10, exponent)) : ""
            lines.append(String(repeating: " ", count: max(0, 9 - label.count)) + label + " |" + String(row))
        }
        lines.append(String(repeating: " ", count: 10) + "+" + String(repeating: "-", count: counts.count * columnWidth))
        lines.append(String(repeating: " ", count: 11) + counts.map { c in
            let text = Format.count(Double(c))
            let left = (columnWidth - text.count) / 2
            return String(repeating: " ", count: max(0, left)) + text + String(repeating: " ", count: max(0, columnWidth - left - text.count))
        }.joined() + " requests")
        return lines
    }
}
