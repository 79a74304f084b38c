import LabHarness

/// The terminal table's columns after `variant` and `outcome`.
let callbackColumns: [ReportColumn] = [
    .seconds("library held", CallbackMetric.libraryHeldS.rawValue),
    .seconds("msg waited", CallbackMetric.incomingDelayS.rawValue),
    ReportColumn("result came on") { resultQueue($0) },
    ReportColumn("handler contract") { contract($0) },
]

/// The queue of the step where the app got its result (labels start with "app gets").
private func resultQueue(_ v: VariantReport) -> String {
    guard let event = v.events?.last(where: { $0.label.hasPrefix("app gets") }), let place = event.thread else { return "—" }
    return String(place.split(separator: " · ").first ?? "—")
}

/// Whether "exactly once" held, in a few words.
private func contract(_ v: VariantReport) -> String {
    let m = v.metrics
    func of(_ part: String, _ figure: String) -> Double? { m[CallbackMetric.of(part, figure)] }
    if v.outcome == .crashed { return "trapped: resumed twice" }
    if v.outcome == .leaked { return "leaked: runtime warning" }
    if let never = m[CallbackMetric.handlerNeverCalled], never > 0 {
        return "never called; reported at \(m[CallbackMetric.stallDetectedAfterS].map(Format.seconds) ?? "—")"
    }
    if let ignored = m[CallbackMetric.handlerIgnored], ignored > 0 {
        return "called \(Format.count(m[CallbackMetric.handlerCalls] ?? 0))×, \(Format.count(ignored)) ignored"
    }
    if let allow = of("allow", "handler.calls"), let cancel = of("cancel", "handler.calls") {
        return "once per sync (\(Format.count(allow)), \(Format.count(cancel)))"
    }
    if v.name == CallbackVariant.syncReturn.rawValue { return "no handler" }
    if v.name == CallbackVariant.urlsessionDisposition.rawValue {
        let full = m[CallbackMetric.bodyBytes] ?? -1
        let whole = DispositionProbe.Answer.allCases.filter { of($0.rawValue, "bytes") == full && of($0.rawValue, "ended") == 1 }.count
        return "\(whole) of 3 answers got the whole body"
    }
    if v.name == CallbackVariant.urlsessionQueues.rawValue {
        let onQueue = of("own", "handler.on_delegate_queue") == 1 && of("given", "handler.on_delegate_queue") == 1
        return onQueue ? "on the delegate queue" : "off the delegate queue"
    }
    if v.name == CallbackVariant.urlsessionSyncMain.rawValue || v.name == CallbackVariant.urlsessionSyncBackground.rawValue {
        return m[CallbackMetric.wrapperBytes].map { "wrapper returned \(Format.count($0)) bytes" } ?? "wrapper never returned"
    }
    if let calls = m[CallbackMetric.handlerCalls] { return calls == 1 ? "called once" : "called \(Format.count(calls))×" }
    return "—"
}

/// One block per variant: each step, when, on which queue and thread, fitted to the report's
/// width (a long step or place wraps within its column).
func stepSections(_ report: ExperimentReport) -> [String] {
    var lines: [String] = ["steps (t from the trial's start · queue · thread)"]
    for v in report.variants {
        guard let events = v.events, !events.isEmpty else { continue }
        lines.append("  \(v.name)")
        let rows = events.map { e in [Format.decimal(e.t, places: 3) + " s", e.label, e.thread ?? ""] }
        lines += TextTable(rows: rows, rightAligned: [0], lead: "    ", hasHeader: false).render(width: ReportWidth.current)
    }
    return [lines.joined(separator: "\n")]
}

/// The runtime's message without the file prefix and the returned value:
/// `SWIFT TASK CONTINUATION MISUSE: profiles(for:) tried to resume its continuation more than once`.
/// Other evidence comes back unchanged.
func misuseMessage(_ evidence: String) -> String {
    guard let start = evidence.range(of: "SWIFT TASK CONTINUATION MISUSE") else { return evidence }
    let tail = evidence[start.lowerBound...]
    guard let end = tail.range(of: "more than once") else { return String(tail) }
    return String(tail[..<end.upperBound])
}
