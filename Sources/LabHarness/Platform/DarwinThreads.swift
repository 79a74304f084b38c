#if canImport(Darwin)
import Darwin

/// Darwin: the current task's threads through Mach. Names come from `THREAD_EXTENDED_INFO`.
enum DarwinThreads {
    static func withThreads<T>(_ body: (UnsafeBufferPointer<thread_act_t>) -> T) -> T? {
        var list: thread_act_array_t?
        var count: mach_msg_type_number_t = 0
        guard task_threads(mach_task_self_, &list, &count) == KERN_SUCCESS, let list else { return nil }
        defer {
            for i in 0..<Int(count) { mach_port_deallocate(mach_task_self_, list[i]) }
            vm_deallocate(mach_task_self_, vm_address_t(UInt(bitPattern: list)),
                          vm_size_t(Int(count) * MemoryLayout<thread_act_t>.stride))
        }
        return body(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    static func count() -> Int? { withThreads { $0.count } }

    static func describe() -> [ThreadInfo] {
        withThreads { threads in
            threads.enumerated().map { index, thread in
                var info = thread_extended_info_data_t()
                var size = mach_msg_type_number_t(MemoryLayout<thread_extended_info_data_t>.size / MemoryLayout<natural_t>.size)
                let ok = withUnsafeMutablePointer(to: &info) {
                    $0.withMemoryRebound(to: integer_t.self, capacity: Int(size)) {
                        thread_info(thread, thread_flavor_t(THREAD_EXTENDED_INFO), $0, &size)
                    }
                } == KERN_SUCCESS
                guard ok else { return ThreadInfo(id: index, name: "", state: nil) }
                let name = withUnsafeBytes(of: info.pth_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                let state: ThreadState
                switch info.pth_run_state {
                case TH_STATE_RUNNING: state = .running
                case TH_STATE_STOPPED: state = .stopped
                case TH_STATE_WAITING, TH_STATE_HALTED: state = .sleeping
                case TH_STATE_UNINTERRUPTIBLE: state = .diskSleep
                default: state = .other
                }
                return ThreadInfo(id: index, name: name, state: state)
            }
        } ?? []
    }
}
#endif
