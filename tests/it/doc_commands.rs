//! Every `eraflow` command shown in README.md and docs/*.md stays runnable. "Runnable" here means what a test
//! can prove without a network, a cluster or mainnet's archives: each command in a `sh` (or `bash`, `console`)
//! code block is parsed by the binary's own argument parser (`src/cli/args.rs`, compiled in below: every
//! subcommand, flag and value type), and every pipeline file a `run` or `plan` names loads with its `--set`
//! overrides into a job (keys, values, paths). Synopses with `[--flag]` placeholders belong in `text` blocks.

#[allow(dead_code)]
#[path = "../../src/cli/args.rs"]
mod args;

use clap::Parser;
use std::path::{Path, PathBuf};

/// One command found in a document.
struct Shown {
    /// `file:line`.
    at: String,
    /// The words after the program name.
    args: Vec<String>,
}

/// Splits a shell line into words: single and double quotes group, a backslash escapes; no expansion.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    in_word = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, '#') if !in_word => break,
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// The `eraflow` commands of `text`'s shell blocks (continuation lines joined; `VAR=value` prefixes, `cargo run
/// [--release] --` and `python -m eraflow` count as the program).
fn commands(file: &str, text: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut in_shell = false;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(lang) = t.strip_prefix("```") {
            in_shell = !in_shell && matches!(lang.trim(), "sh" | "bash" | "shell" | "console");
            continue;
        }
        if !in_shell {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((n + 1, String::new()));
        let t = t.strip_prefix("$ ").unwrap_or(t);
        if let Some(head) = t.strip_suffix('\\') {
            joined.push_str(head);
            joined.push(' ');
            pending = Some((start, joined));
            continue;
        }
        joined.push_str(t);
        let mut w = words(&joined);
        while w.first().is_some_and(|x| {
            x.contains('=')
                && !x.starts_with('-')
                && x.split('=')
                    .next()
                    .is_some_and(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        }) {
            w.remove(0);
        }
        let skip = match w.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["eraflow" | "target/release/eraflow" | "target/debug/eraflow", ..] => 1,
            ["cargo", "run", "--", ..] => 3,
            ["cargo", "run", "--release", "--", ..] => 4,
            ["python" | "python3", "-m", "eraflow", ..] => 3,
            _ => continue,
        };
        out.push(Shown {
            at: format!("{file}:{start}"),
            args: w.split_off(skip),
        });
    }
    out
}

/// A pipeline path as the docs show it, in this checkout: the image's `/etc/eraflow/pipelines/` and the
/// examples' `/shared/pipelines/` are `pipelines/`.
fn pipeline_here(repo: &Path, shown: &str) -> Option<PathBuf> {
    let p = Path::new(shown);
    let local = if p.is_relative() {
        repo.join(p)
    } else {
        repo.join("pipelines").join(p.file_name()?)
    };
    local.exists().then_some(local)
}

#[test]
fn every_command_in_the_readme_and_docs_parses_and_its_pipeline_loads() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![repo.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    let mut shown = Vec::new();
    for d in &docs {
        let rel = d.strip_prefix(repo).unwrap().display().to_string();
        shown.extend(commands(&rel, &std::fs::read_to_string(d).unwrap()));
    }
    assert!(shown.len() >= 10, "found only {} commands", shown.len());
    let mut problems = Vec::new();
    for c in &shown {
        let argv = std::iter::once("eraflow".to_string()).chain(c.args.iter().cloned());
        let cli = match args::Cli::try_parse_from(argv) {
            Ok(cli) => cli,
            Err(e) if !e.use_stderr() => continue, // --help, --version
            Err(e) => {
                problems.push(format!(
                    "{}: eraflow {}: {}",
                    c.at,
                    c.args.join(" "),
                    e.render()
                ));
                continue;
            }
        };
        let (file, sets) = match &cli.command {
            args::Command::Run(a) => (&a.pipeline, &a.sets),
            args::Command::Plan(a) => (&a.pipeline, &a.sets),
            _ => continue,
        };
        let Some(local) = pipeline_here(repo, &file.to_string_lossy()) else {
            problems.push(format!("{}: no pipeline file {}", c.at, file.display()));
            continue;
        };
        let layers = eraflow::pipeline::config::Layers {
            file: Some(&local),
            sets,
            ..Default::default()
        };
        if let Err(e) = eraflow::pipeline::Job::load(layers) {
            problems.push(format!(
                "{}: {}: {}",
                c.at,
                local.display(),
                eraflow::error::render(&e)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_extractor_reads_what_the_docs_write() {
    let text = "```sh\n# a comment\nRAY_ADDRESS=x eraflow run p.toml --set 'inputs=[\"a b\"]' \\\n    --shard 0/2  # why\ncargo run --release -- verify x\nls\n```\n```text\neraflow [--x]\n```\n";
    let c = commands("t.md", text);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].at, "t.md:3");
    assert_eq!(
        c[0].args,
        [
            "run",
            "p.toml",
            "--set",
            "inputs=[\"a b\"]",
            "--shard",
            "0/2"
        ]
    );
    assert_eq!(c[1].args, ["verify", "x"]);
}
