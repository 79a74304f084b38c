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
/// caller's closure is wrapped in `probe.created(on:)`, which measures it and passes it on. The
/// finding `dance.hidden-api-cycle` compares the two.
enum HiddenAPI {
    static func runCycle(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "screen")
        do {
            let screen = ConversationScreen(lifetime: trial.tag())
            trial.watch(screen)
            // The caller's code: it reads as harmless, and the compiler says nothing.
            screen.configureBarButtonItem(style: .groupProfile, action: trial.probe.created(on: screen) { _ in
                screen.push("group profile")   // names `screen`: a strong capture, the point of this variant
            })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            context.event("tap")
            trial.endScope(of: screen)
        }
        trial.settle { (screen: ConversationScreen) in screen.clearBarButtonAction() }
        return trial.record(trial.outcome, mechanism: trial.heldMechanism("the stored action"), evidence: "screen \(trial.releaseSummary)")
    }

    static func runFixed(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "screen")
        do {
            let screen = FixedConversationScreen(lifetime: trial.tag())
            trial.watch(screen)
            screen.configureBarButtonItem(style: .groupProfile, action: trial.probe.created(on: screen) { screen, _ in
                screen.push("group profile")   // the parameter shadows the local: nothing is captured
            })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            context.event("tap")
            trial.endScope(of: screen)
        }
        trial.awaitRelease()
        return trial.record(trial.outcome, mechanism: trial.heldMechanism("the stored action"), evidence: "screen \(trial.releaseSummary)")
    }
}
