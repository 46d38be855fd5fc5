/// `joule --version`. Bumped by hand with each release; scripts compare it with `sort -V`.
enum JouleVersion {
    static let current = "0.9.0"
}
