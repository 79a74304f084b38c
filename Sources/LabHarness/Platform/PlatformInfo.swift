import Foundation

/// The machine an experiment ran on, as it appears in every report.
public struct PlatformInfo: Sendable, Codable, Equatable {
    /// `linux`, `macos`, or another lower-case OS name.
    public var os: String
    /// Active processor count.
    public var cpus: Int
    /// The Swift compiler version the lab was built with, such as `6.3.1`.
    public var swift: String

    public init(os: String, cpus: Int, swift: String) {
        self.os = os
        self.cpus = cpus
        self.swift = swift
    }

    public static let current = PlatformInfo(os: currentOS, cpus: ProcessInfo.processInfo.activeProcessorCount,
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
