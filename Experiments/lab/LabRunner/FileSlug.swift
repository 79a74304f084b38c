/// A name from a results file made safe to use in a file name: ASCII letters, digits, `-` and
/// `_` only, at most 60 characters, never empty. `../../../x` becomes `x`, `a/b` becomes `a-b`:
/// whatever an experiment calls itself, its charts land inside `--out/charts/`.
enum FileSlug {
    static let limit = 60

    static func make(_ name: String) -> String {
        var slug = ""
        var pendingDash = false
        for scalar in name.unicodeScalars {
            let safe =
                scalar.isASCII
                && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
            if safe && scalar != "-" {
                if pendingDash && !slug.isEmpty { slug.append("-") }
                pendingDash = false
                slug.unicodeScalars.append(scalar)
                if slug.count >= limit { break }
            } else {
                pendingDash = true
            }
        }
        return slug.isEmpty ? "experiment" : slug
    }
}
