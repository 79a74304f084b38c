import Foundation

/// Blank `posix_spawn` file actions and attributes, ready for their `_init` calls.
///
/// The C types differ: glibc declares them as structs, which Swift imports as values that
/// start zeroed; Darwin declares them as opaque pointers, which Swift imports as optionals that
/// start `nil`. Either way `ChildProcess` passes `&value` to the same `posix_spawn*` calls.
enum SpawnHandles {
    #if os(Linux)
    typealias FileActions = posix_spawn_file_actions_t
    typealias Attributes = posix_spawnattr_t

    static func fileActions() -> FileActions { FileActions() }
    static func attributes() -> Attributes { Attributes() }
    #else
    typealias FileActions = posix_spawn_file_actions_t?
    typealias Attributes = posix_spawnattr_t?

    static func fileActions() -> FileActions { nil }
    static func attributes() -> Attributes { nil }
    #endif
}
