#if canImport(Darwin)
import Darwin

// Darwin: `task_threads` lists a send right (a port) for every thread of the task. The port
// name is stable while the thread lives, but names can be recycled once a thread is gone, so
// the identity used is the 64-bit `thread_id` from THREAD_IDENTIFIER_INFO, which the kernel
// never reuses; the port is the fallback when that call fails. Every port right `task_threads`
// hands out, and the array itself, is released before returning.
extension ThreadRoster {
    static func platformIdentities() -> Set<UInt64> {
        var result = Set<UInt64>()
        forEachThread { port in result.insert(identity(of: port)) }
        return result
    }

    static func platformName(of id: UInt64) -> String {
        var found = ""
        forEachThread { port in
            guard found.isEmpty, identity(of: port) == id else { return }
            let info: thread_extended_info_data_t? = threadInfo(port, flavor: THREAD_EXTENDED_INFO)
            if let info {
                found = withUnsafeBytes(of: info.pth_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
            }
        }
        return found
    }

    static func platformCurrentIdentity() -> UInt64 {
        var id: UInt64 = 0
        // pthread_threadid_np gives the same kernel thread id as THREAD_IDENTIFIER_INFO.
        if pthread_threadid_np(nil, &id) == 0 { return id }
        let port = mach_thread_self()
        defer { mach_port_deallocate(mach_task_self_, port) }
        return identity(of: port)
    }

    /// The kernel's unique thread id for `port`, or the port name when the kernel does not say.
    private static func identity(of port: thread_act_t) -> UInt64 {
        let info: thread_identifier_info_data_t? = threadInfo(port, flavor: THREAD_IDENTIFIER_INFO)
        return info?.thread_id ?? UInt64(port)
    }

    /// `thread_info` of `flavor` for `port`, read into the struct `T` that flavor fills.
    private static func threadInfo<T>(_ port: thread_act_t, flavor: Int32) -> T? {
        let words = MemoryLayout<T>.size / MemoryLayout<natural_t>.size
        let buffer = UnsafeMutablePointer<integer_t>.allocate(capacity: words)
        buffer.initialize(repeating: 0, count: words)
        defer { buffer.deallocate() }
        var size = mach_msg_type_number_t(words)
        guard thread_info(port, thread_flavor_t(flavor), buffer, &size) == KERN_SUCCESS else { return nil }
        return UnsafeRawPointer(buffer).loadUnaligned(as: T.self)
    }

    /// Calls `body` with each thread port of this task, then releases the ports and the list.
    private static func forEachThread(_ body: (thread_act_t) -> Void) {
        var list: thread_act_array_t?
        var count: mach_msg_type_number_t = 0
        guard task_threads(mach_task_self_, &list, &count) == KERN_SUCCESS, let list else { return }
        defer {
            for i in 0..<Int(count) { mach_port_deallocate(mach_task_self_, list[i]) }
            vm_deallocate(mach_task_self_, vm_address_t(UInt(bitPattern: list)),
                          vm_size_t(Int(count) * MemoryLayout<thread_act_t>.stride))
        }
        for i in 0..<Int(count) { body(list[i]) }
    }
}
#endif
