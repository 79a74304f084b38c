import LabHarness

/// One of the article's `configureBarButtonItemStyle:action:` styles, by its icon.
enum BarButtonStyle: String { case settings = "barbuttonicon_set", groupProfile = "barbuttonicon_InfoMulti" }

/// A chat screen with a public API that keeps the caller's action: the right bar button calls
/// it on every tap. Nothing in the signature says the action is stored, so a caller whose
/// action names the screen has built a cycle without writing `self` anywhere.
final class ConversationScreen {
    private(set) var rightBarButtonIcon: String?, pushed: [String] = []
    private var barButtonAction: ((String) -> Void)?
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    func configureBarButtonItem(style: BarButtonStyle, action: @escaping (String) -> Void) {
        rightBarButtonIcon = style.rawValue
        barButtonAction = action  // stored: the caller cannot see this line
    }

    func tapBarButton() { if let item = rightBarButtonIcon { barButtonAction?(item) } }
    func push(_ title: String) { pushed.append(title) }

    /// Drops the stored action (used only to show that it was what held the screen).
    func clearBarButtonAction() { barButtonAction = nil }
}

/// The same screen with the article's fix: the action's first parameter is the screen itself, so
/// a caller has what it needs without naming (and capturing) the screen.
final class FixedConversationScreen {
    private(set) var rightBarButtonIcon: String?, pushed: [String] = []
    private var barButtonAction: ((FixedConversationScreen, String) -> Void)?
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    func configureBarButtonItem(style: BarButtonStyle, action: @escaping (FixedConversationScreen, String) -> Void) {
        rightBarButtonIcon = style.rawValue
        barButtonAction = action
    }

    func tapBarButton() { if let item = rightBarButtonIcon { barButtonAction?(self, item) } }
    func push(_ title: String) { pushed.append(title) }
}

/// `hidden-api-cycle` and `hidden-api-fixed`: the same call site against the two APIs (the
/// caller's closure wrapped in `probe.created(on:)`, which measures it and passes it on).
enum HiddenAPI {
    static func runCycle(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "screen")
        do {
            let screen = ConversationScreen(onDeinit: trial.ownerDeinit)
            trial.watch(screen)
            // The caller's code: it reads as harmless, and the compiler says nothing.
            screen.configureBarButtonItem(
                style: .groupProfile,
                action: trial.probe.created(on: screen) { _ in
                    screen.push("group profile")  // names `screen`: a strong capture, the point of this variant
                })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            context.event("tap")
            trial.endScope(of: screen)
        }
        trial.settle { (screen: ConversationScreen) in screen.clearBarButtonAction() }
        return trial.record(heldBy: "the stored action")
    }

    static func runFixed(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "screen")
        do {
            let screen = FixedConversationScreen(onDeinit: trial.ownerDeinit)
            trial.watch(screen)
            screen.configureBarButtonItem(
                style: .groupProfile,
                action: trial.probe.created(on: screen) { screen, _ in
                    screen.push("group profile")  // the parameter shadows the local: nothing is captured
                })
            trial.probe.stored(on: screen)
            screen.tapBarButton()
            context.event("tap")
            trial.endScope(of: screen)
        }
        trial.awaitRelease()
        return trial.record(heldBy: "the stored action")
    }
}
