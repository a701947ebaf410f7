//! `cargo build`, `cargo test` and `pip install ./python` compile the dependency graph once, not once each: they
//! use one profile (`dev`; the test profile inherits it) and one target directory, and this test keeps the third
//! condition, one feature set. A dev-dependency that turns on a feature of a crate eraflow also uses would make
//! `cargo test` build its own copy of that crate and of everything above it; the features such dependencies need
//! are pinned in Cargo.toml's `[dependencies]` instead, and this test names any that part again.

use std::collections::BTreeSet;
use std::process::Command;

/// Every (crate, features) of eraflow's graph as `cargo tree` resolves it, with or without dev-dependencies.
fn resolved(edges: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "eraflow",
            "--prefix",
            "none",
        ])
        .args(["-e", edges, "-f", "{p} {f}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end_matches(" (*)").trim_end().to_string())
        .collect()
}

#[test]
fn tests_and_builds_resolve_one_feature_set() {
    let build = resolved("normal,build");
    let test = resolved("normal,build,dev");
    // Crates only the tests use are fine (another version of a crate the build has too is another crate: it
    // rebuilds nothing of the build's); a crate of the build resolved with other features is not.
    let name = |l: &String| l.split(' ').take(2).collect::<Vec<_>>().join(" ");
    let built: BTreeSet<String> = build.iter().map(name).collect();
    let parted: Vec<String> = test
        .difference(&build)
        .filter(|l| built.contains(&name(l)))
        .map(|l| {
            let was = build
                .iter()
                .find(|b| name(b) == name(l))
                .cloned()
                .unwrap_or_default();
            format!("{l}\n    (cargo build: {was})")
        })
        .collect();
    assert!(
        parted.is_empty(),
        "dev-dependencies change these crates' features, so `cargo test` rebuilds them and everything above \
         them; pin the features in Cargo.toml's [dependencies]:\n{}",
        parted.join("\n")
    );
}
