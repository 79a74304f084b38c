import Foundation

/// The machine an experiment ran on, as it appears in every report.
public struct PlatformInfo: Sendable, Codable, Equatable {
    /// `linux`, `macos`, or another lower-case OS name.
    public var os: String
    /// The CPUs the process may use (affinity mask, capped by a cgroup quota; see `CPUBudget`).
    public var cpus: Int
    /// The Swift compiler version the lab was built with, such as `6.3.1`.
    public var swift: String

    public init(os: String, cpus: Int, swift: String) {
        self.os = os
        self.cpus = cpus
        self.swift = swift
    }

    /// `cpus` is what the process may use (`CPUBudget.usable`: the affinity mask and a cgroup quota).
    public static let current = PlatformInfo(
        os: currentOS, cpus: CPUBudget.current.usable,
        swift: swiftVersion)

    public var isLinux: Bool { os == "linux" }

    /// As the C shim was compiled (`clab_os_name`).
    static var currentOS: String {
        HostPlatform.osName
    }

    /// The compiler version, found by `#if compiler(...)` checks at build time.
    static var swiftVersion: String {
        #if compiler(>=7.0)
        return "7+"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3.2)
        return "6.3.2"
        #elseif compiler(>=6.3.1)
        return "6.3.1"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }
}
