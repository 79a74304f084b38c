import LabHarness

/// The terminal table's columns after `variant` and `outcome`.
let callbackColumns: [ReportColumn] = [
    .seconds("library held", CallbackMetric.libraryHeldS),
    .seconds("msg waited", CallbackMetric.incomingDelayS),
    // The queue of the step where the app got its result (labels start with "app gets").
    ReportColumn("result came on") {
        $0.events?.last { $0.label.hasPrefix("app gets") }?.thread?.components(separatedBy: " · ").first ?? "—"
    },
    ReportColumn("handler contract") { contract($0) },
]

/// Whether "exactly once" held, in a few words.
private func contract(_ v: VariantReport) -> String {
    func of(_ part: String, _ figure: CallbackMetric.Figure) -> Double? { v[CallbackMetric.of(part, figure)] }
    switch CallbackVariant(rawValue: v.name) {
    case _ where v.outcome == .crashed: return "trapped: resumed twice"
    case _ where v.outcome == .leaked: return "leaked: runtime warning"
    case .syncReturn: return "no handler"
    case .forgottenHandler:
        return "never called; reported at \(v[CallbackMetric.stallDetectedAfterS].map(Format.seconds) ?? "—")"
    case .delegateCompletion:
        return
            "once per sync (\(Format.count(of("allow", .handlerCalls) ?? 0)), \(Format.count(of("cancel", .handlerCalls) ?? 0)))"
    case .urlsessionDisposition:
        let whole = URLSessionDisposition.Answer.allCases.filter {
            of($0.rawValue, .bytes) == v[CallbackMetric.bodyBytes] && of($0.rawValue, .ended) == 1
        }
        return "\(whole.count) of 3 answers got the whole body"
    case .urlsessionQueues:
        return of("own", .handlerOnDelegateQueue) == 1 && of("given", .handlerOnDelegateQueue) == 1
            ? "on the delegate queue" : "off the delegate queue"
    case .urlsessionSyncMain, .urlsessionSyncBackground:
        return v[CallbackMetric.wrapperBytes].map { "wrapper returned \(Format.count($0)) bytes" }
            ?? "wrapper never returned"
    default:
        guard let calls = v[CallbackMetric.handlerCalls] else { return "—" }
        let ignored = v[CallbackMetric.handlerIgnored] ?? 0
        return ignored > 0
            ? "called \(Format.count(calls))×, \(Format.count(ignored)) ignored"
            : calls == 1 ? "called once" : "called \(Format.count(calls))×"
    }
}
