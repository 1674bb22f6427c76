//! Embeds the commit fabcheck is built from, for `--version` (`unknown` outside a git checkout,
//! as in a source archive or CI's copy of the tree).

fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FABCHECK_COMMIT={commit}");
    // Rebuilt when the checkout moves; a path that does not exist would rebuild every time.
    println!("cargo:rerun-if-changed=build.rs");
    for path in [".git/HEAD", ".git/refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
