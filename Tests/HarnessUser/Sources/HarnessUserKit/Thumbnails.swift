import Foundation

/// Renders thumbnails side by side in a task group, each render synchronous work on its task's
/// thread. The cooperative pool has one thread per core, so as many renders as cores hold all
/// of it: nothing else async runs until they are done, a test's waiting included.
public enum BlockingThumbnailer {
    public static func renderAll(count: Int, cost: TimeInterval) async {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { usleep(UInt32(cost * 1e6)) }  // holds a pool thread for the render: the point
            }
        }
    }
}
