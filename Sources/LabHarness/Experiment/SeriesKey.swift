/// The names of the series the lab runner knows how to chart. A variant that records one of
/// these gets the matching chart in `lab report`, whatever its experiment; the experiments and
/// the runner both spell them through these constants, so neither can drift from the other.
public enum SeriesKey {
    /// `[[t_s, threads], ...]`: the process's thread count over time (a timeline chart).
    public static let threads = "threads"
    /// `[[t_s, wait_ms], ...]`: how long each probe waited to start (a log-scale timeline).
    public static let probeWait = "probe_ms"
    /// `[[t_s, lateness_ms], ...]`: how late each timer fired (a distribution, one dot each).
    public static let lateness = "lateness_ms"
}
