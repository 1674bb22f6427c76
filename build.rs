//! Embeds, for `--version`, the commit fabcheck is built from (`unknown` outside a git checkout,
//! as in a source archive or CI's copy of the tree) and the oldest glibc the binary runs on.

fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FABCHECK_COMMIT={commit}");
    // `deploy/build-portable` links against glibc 2.28's symbol versions (zig) and says so here;
    // a plain cargo build links against the build machine's glibc, whose newest default symbols
    // (`__libc_start_main`, `pthread_*`) are 2.34's on Debian 12. A test holds the binary to it.
    let glibc = std::env::var("FABCHECK_GLIBC_BASELINE").unwrap_or_else(|_| "2.34".into());
    let is_version = glibc.split_once('.').is_some_and(|(major, minor)| {
        !major.is_empty() && !minor.is_empty() && (major.to_owned() + minor).bytes().all(|b| b.is_ascii_digit())
    });
    assert!(is_version, "FABCHECK_GLIBC_BASELINE={glibc} is not a glibc version such as 2.28");
    println!("cargo:rustc-env=FABCHECK_GLIBC_BASELINE={glibc}");
    println!("cargo:rerun-if-env-changed=FABCHECK_GLIBC_BASELINE");
    // Rebuilt when the checkout moves; a path that does not exist would rebuild every time.
    println!("cargo:rerun-if-changed=build.rs");
    for path in [".git/HEAD", ".git/refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
