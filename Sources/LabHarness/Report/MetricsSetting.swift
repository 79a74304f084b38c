extension Metrics {
    /// Sets each figure; a nil value leaves its key out. For a body that measures several
    /// figures at once and should say so in one statement, not one assignment per key.
    public mutating func set(_ figures: KeyValuePairs<String, Double?>) {
        for (key, value) in figures { self[key] = value }
    }
}
