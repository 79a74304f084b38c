import LabHarness

/// The icons of the seed's `configureBarButtonItemStyle:action:`.
enum BarButtonStyle {
    case settings, more, add, addFriends, singleProfile, groupProfile, share

    var icon: String {
        switch self {
        case .settings: "barbuttonicon_set"
        case .more: "barbuttonicon_more"
        case .add: "barbuttonicon_add"
        case .addFriends: "barbuttonicon_addfriends"
        case .singleProfile: "barbuttonicon_InfoSingle"
        case .groupProfile: "barbuttonicon_InfoMulti"
        case .share: "barbuttonicon_Operate"
        }
    }
}

struct BarButtonItem {
    var icon: String
}

/// A chat screen with a public API that keeps the caller's action: the right bar button calls
/// it on every tap. Nothing in the signature says the action is stored, so a caller whose
/// action names the screen has built a cycle without writing `self` anywhere.
final class ConversationScreen {
    private(set) var rightBarButtonItem: BarButtonItem?
    private(set) var pushed: [String] = []
    private var barButtonAction: ((BarButtonItem) -> Void)?
    let lifetime: LifetimeTag

    init(lifetime: LifetimeTag) {
        self.lifetime = lifetime
    }

    func configureBarButtonItem(style: BarButtonStyle, action: @escaping (BarButtonItem) -> Void) {
        rightBarButtonItem = BarButtonItem(icon: style.icon)
        barButtonAction = action   // stored: the caller cannot see this line
    }

    func tapBarButton() {
        if let item = rightBarButtonItem { barButtonAction?(item) }
    }

    func push(_ title: String) { pushed.append(title) }

    /// Drops the stored action (used only to show that it was what held the screen).
    func clearBarButtonAction() { barButtonAction = nil }
}

/// The same screen with the seed's fix: the action's first parameter is the screen itself, so
/// a caller has what it needs without naming (and capturing) the screen.
final class FixedConversationScreen {
    private(set) var rightBarButtonItem: BarButtonItem?
    private(set) var pushed: [String] = []
    private var barButtonAction: ((FixedConversationScreen, BarButtonItem) -> Void)?
    let lifetime: LifetimeTag

    init(lifetime: LifetimeTag) {
        self.lifetime = lifetime
    }

    func configureBarButtonItem(style: BarButtonStyle, action: @escaping (FixedConversationScreen, BarButtonItem) -> Void) {
        rightBarButtonItem = BarButtonItem(icon: style.icon)
        barButtonAction = action
    }

    func tapBarButton() {
        if let item = rightBarButtonItem { barButtonAction?(self, item) }
    }

    func push(_ title: String) { pushed.append(title) }
}

/// `hidden-api-cycle` and `hidden-api-fixed`: the same call site against the two APIs. The
/// caller's closure is wrapped in `probe.created(on:)`, which measures it and passes it on.
enum HiddenAPI {
    static func runCycle(_ context: VariantContext) -> VariantRecord {
        let trial = DanceTrial(context, owner: "screen")
        weak var leftBehind: ConversationScreen?   // only to break the cycle once the leak has been measured
        do {
            let screen = ConversationScreen(lifetime: trial.lifetime.tag())
            trial.lifetime.track(screen)
            trial.probe.begin(screen)
            // The caller's code: it reads as harmless, and the compiler says nothing.
            screen.configureBarButtonItem(style: .groupProfile, action: trial.probe.created(on: screen) { _ in
                screen.push("group profile")   // names `screen`: a strong capture, the point of this variant
            })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            trial.log.record("tap")
            leftBehind = screen
            trial.lifetime.endScope(of: screen)
        }
        let extra = trial.settle {
            guard let screen = leftBehind else { return false }
            screen.clearBarButtonAction()
            return true
        }
        let evidence = "the stored action holds the screen (\(trial.probe.onceStored?.description ?? "?") once stored); "
            + trial.releaseSummary + DanceTrial.breakSummary(extra, what: "the stored action")
        return trial.record(trial.releaseOutcome, extra: extra, evidence: evidence)
    }

    static func runFixed(_ context: VariantContext) -> VariantRecord {
        let trial = DanceTrial(context, owner: "screen")
        do {
            let screen = FixedConversationScreen(lifetime: trial.lifetime.tag())
            trial.lifetime.track(screen)
            trial.probe.begin(screen)
            screen.configureBarButtonItem(style: .groupProfile, action: trial.probe.created(on: screen) { screen, _ in
                screen.push("group profile")   // the parameter shadows the local: nothing is captured
            })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            trial.log.record("tap")
            trial.lifetime.endScope(of: screen)
        }
        trial.lifetime.scopeClosed()
        trial.lifetime.waitForRelease(within: trial.grace)
        let evidence = "the stored action holds \(trial.probe.onceStored.map { $0 == .zero ? "nothing of the screen" : "the screen (\($0))" } ?? "?"); "
            + trial.releaseSummary
        return trial.record(trial.releaseOutcome, evidence: evidence)
    }
}
