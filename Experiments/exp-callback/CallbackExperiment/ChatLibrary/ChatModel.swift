/// The chat library knows users only by id; names come from the app (as in the article's ChatKit).
public typealias UserID = String

/// What the app tells the library about a user.
public struct Profile: Sendable, Equatable {
    public var id: UserID, name: String
    public init(id: UserID, name: String) { self.id = id; self.name = name }
}

public struct Message: Sendable, Equatable {
    public var from: UserID, text: String
    public init(from: UserID, text: String) { self.from = from; self.text = text }
}

public struct Conversation: Sendable {
    public var title: String, messages: [Message]
    public init(title: String, messages: [Message]) { self.title = title; self.messages = messages }

    /// The distinct senders, in order of first appearance: what the library must ask about.
    public var userIDs: [UserID] {
        messages.map(\.from).reduce(into: [UserID]()) { ids, id in if !ids.contains(id) { ids.append(id) } }
    }

    /// The conversation every scenario renders.
    public static let sample = Conversation(
        title: "lab",
        messages: [
            Message(from: "u1", text: "did the timeout fire?"),
            Message(from: "u2", text: "nine seconds late"),
            Message(from: "u3", text: "which queue was the timer on?"),
            Message(from: "u1", text: "the global one"),
        ])
}

/// A rendered conversation: one line per message, with names from the app, or only ids when the app never answered.
public struct Rendering: Sendable, Equatable {
    public enum Names: String, Sendable { case fromApp, idsOnly }
    public var lines: [String], names: Names
}
