//! The page: one HTML file with its CSS inline and its charts as inline SVG, readable without network or
//! JavaScript, on a laptop screen and in dark mode (`prefers-color-scheme`). Every chart has a title, a text
//! alternative and a caption; a chart without data is replaced by a note saying so.

use super::aggregate::{Chain, Sums, TOKEN_TRANSFERS, TYPE_NAMES};
use super::charts::{self, esc, Label, Series, XAxis, FAILED, GAP, PALETTE, PRESENT};
use super::runs::{failed_files, RunEntry};
use super::source::ManifestRead;
use crate::formats::{ArchiveKind, ArchiveName};
use crate::sink::manifest::SourceEntry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// What the page is made of.
pub struct PageInput<'a> {
    /// The output, as the page names it.
    pub title: String,
    /// Its manifest.
    pub manifest: &'a ManifestRead,
    /// How many run reports there are, and the newest ones, newest first.
    pub runs: &'a (usize, Vec<RunEntry>),
    /// The aggregates of its Parquet.
    pub chain: &'a Chain,
}

/// Escaped text with `` `name` `` spans as `<code>name</code>`.
fn code(s: &str) -> String {
    let mut o = String::new();
    for (i, part) in esc(s).split('`').enumerate() {
        match i % 2 {
            1 => {
                let _ = write!(o, "<code>{part}</code>");
            }
            _ => o.push_str(part),
        }
    }
    o
}

/// A count with thousands separated: `1,234,567`.
pub fn thousands(n: u128) -> String {
    let s = n.to_string();
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

/// Bytes as people read them: `512 B`, `1.5 MiB`, `2.0 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    match u {
        0 => format!("{n} B"),
        _ => format!("{v:.1} {}", UNITS[u]),
    }
}

/// `docs/schema.md`, embedded: the page carries the column descriptions of the datasets it shows. A link would be
/// dead (relative to the page, it points into the output folder, not the sources) or need a host, and the page is
/// self-contained and read offline.
const SCHEMA_DOC: &str = include_str!("../../docs/schema.md");

/// The section of `docs/schema.md` about `dataset` (`## <dataset> — ...` up to the next `## ` heading): its heading
/// and its text (the Markdown, trimmed). `None` for a dataset the doc has no section of (a decoded event).
fn schema_section(dataset: &str) -> Option<(&'static str, &'static str)> {
    let mut found: Option<(&'static str, usize)> = None;
    let mut at = 0;
    for line in SCHEMA_DOC.split_inclusive('\n') {
        if let Some(heading) = line.strip_prefix("## ") {
            if let Some((h, start)) = found {
                return Some((h, SCHEMA_DOC[start..at].trim()));
            }
            if heading.split_whitespace().next() == Some(dataset) {
                found = Some((heading.trim(), at + line.len()));
            }
        }
        at += line.len();
    }
    found.map(|(h, start)| (h, SCHEMA_DOC[start..].trim()))
}

/// Markdown links reduced to their text (`[EIP-2718](https://...)` is `EIP-2718`): the page links nothing
/// outside itself. A `[` that opens no link (`list[binary]`) is kept.
fn unlinked(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let link = after
            .find(']')
            .filter(|&c| !after[..c].contains('\n') && after[c + 1..].starts_with('('))
            .and_then(|c| after[c + 1..].find(')').map(|e| (c, c + 1 + e)));
        match link {
            Some((text, end)) => {
                out.push_str(&after[..text]);
                rest = &after[end + 1..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

const CSS: &str = r#"
:root{--bg:#ffffff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;color-scheme:light dark}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--card:#161b22;--ok:#3fb950;--bad:#f85149;--warn:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:1180px;margin:0 auto;padding:0 20px}
header{padding-top:18px}
h1{font-size:1.6rem;margin:.2em 0}
h2{font-size:1.3rem;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:1px solid var(--line)}
h3{font-size:1.1rem;margin:1.2em 0 .4em}
nav a{margin-right:1em}
a{color:#0969da}
@media (prefers-color-scheme: dark){a{color:#58a6ff}}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.muted{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:140px}
.card b{display:block;font-size:1.3rem}
.ok{color:var(--ok);font-weight:600}.failed,.interrupted{color:var(--bad);font-weight:600}.running{color:var(--warn);font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:16px}
figure{margin:0;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
figure h4{margin:0 0 4px;font-size:1rem}
figcaption{color:var(--muted);font-size:.9rem;margin-top:4px}
svg.chart{display:block;width:100%;height:auto}
svg.chart text{fill:var(--fg)}
.legend{list-style:none;padding:0;margin:4px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.9rem}
.legend li::before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.35em;border-radius:2px;background:var(--swatch);vertical-align:-.05em}
.nodata p{margin:.6em 0;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:6px 0}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
td.n,th.n,.sources td:nth-child(4),.sources td:nth-child(5),.sources td:nth-child(8),.sources th:nth-child(4),.sources th:nth-child(5),.sources th:nth-child(8){text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
details{margin:6px 0}
summary{cursor:pointer}
pre.err{white-space:pre-wrap;margin:2px 0 6px;font-size:.85rem;color:var(--bad)}
pre.doc{white-space:pre-wrap;margin:2px 0 6px;font-size:.85rem;background:var(--card);padding:8px}
footer{color:var(--muted);font-size:.85rem;padding-bottom:24px;margin-top:28px}
"#;

/// The whole page.
pub fn page(p: &PageInput<'_>) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let title = format!("eraflow report: {}", p.title);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    let _ = write!(
        h,
        "<header>\n<h1>eraflow report</h1>\n<p>Output <code>{}</code></p>\n<nav aria-label=\"Sections\"><a href=\"#coverage\">Coverage</a><a href=\"#runs\">Runs</a><a href=\"#chain\">The chain</a><a href=\"#datasets\">Datasets</a></nav>\n</header>\n<main>\n",
        esc(&p.title)
    );
    summary(&mut h, p);
    coverage(&mut h, p);
    runs(&mut h, p);
    chain(&mut h, p);
    datasets(&mut h, p);
    let _ = write!(
        h,
        "</main>\n<footer>Made by <code>eraflow report</code> {} from the output's manifest, run reports and Parquet files (aggregates only: no rows). Times are the run reports' own, in UTC.</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    h
}

fn summary(h: &mut String, p: &PageInput<'_>) {
    let m = p.manifest.get();
    let sources = m.map_or(0, |m| m.sources.len());
    let networks: BTreeSet<&str> = m
        .map(|m| m.sources.values().map(|s| s.network.as_str()).collect())
        .unwrap_or_default();
    let total: u64 = p.chain.datasets.values().map(|d| d.bytes).sum();
    let failed = failed_files(&p.runs.1).len();
    let last = p.runs.1.first().and_then(|e| e.run.as_ref().ok());
    h.push_str("<section id=\"summary\" aria-label=\"Summary\">\n<div class=\"cards\">\n");
    let mut card = |label: &str, value: String| {
        let _ = writeln!(
            h,
            "<div class=\"card\"><span class=\"muted\">{label}</span><b>{value}</b></div>"
        );
    };
    card("sources", thousands(sources as u128));
    card(
        "networks",
        match networks.is_empty() {
            true => "none".into(),
            false => esc(&networks.into_iter().collect::<Vec<_>>().join(", ")),
        },
    );
    card("Parquet bytes", bytes(total));
    card("failed files", thousands(failed as u128));
    card(
        "last run",
        match last {
            Some(r) => format!(
                "<span class=\"{0}\">{0}</span> <span class=\"muted\">{1}</span>",
                esc(&r.status),
                esc(&r.finished)
            ),
            None => "none".into(),
        },
    );
    h.push_str("</div>\n");
    match p.manifest {
        ManifestRead::Missing => h.push_str("<p class=\"muted\">No <code>_eraflow/manifest.json</code>: nothing has been exported here yet.</p>\n"),
        ManifestRead::Unreadable(e) => {
            let _ = writeln!(h, "<p class=\"failed\">_eraflow/manifest.json does not parse: {}</p>", esc(e));
        }
        ManifestRead::Read(_) => {}
    }
    h.push_str("</section>\n");
}

/// The era a source holds, from its name, else from its ranges.
fn era_of(name: &str, s: &SourceEntry) -> (ArchiveKind, u64) {
    if let Ok(n) = ArchiveName::parse(name) {
        return (n.kind, n.era);
    }
    // Records name their kind (era1 when they predate naming it).
    let kind = s.kind.parse().unwrap_or(ArchiveKind::Era1);
    match kind.holds().beacon_blocks {
        true => (
            kind,
            s.slots.map_or(0, |(a, _)| a / 8192 + u64::from(a > 0)),
        ),
        false => (kind, s.first_block / 8192),
    }
}

/// Runs of equal colour over `lo..=hi`: present eras, failed files, and the gaps between.
fn runs_of(
    lo: u64,
    hi: u64,
    present: &BTreeSet<u64>,
    failed: &BTreeSet<u64>,
) -> Vec<(u64, u64, (u8, u8, u8))> {
    let mut out: Vec<(u64, u64, (u8, u8, u8))> = Vec::new();
    let mut e = lo;
    while e <= hi {
        let c = if failed.contains(&e) {
            FAILED
        } else if present.contains(&e) {
            PRESENT
        } else {
            GAP
        };
        match out.last_mut() {
            Some(l) if l.2 == c && l.1 + 1 == e => l.1 = e,
            _ => out.push((e, e, c)),
        }
        if e == u64::MAX {
            break;
        }
        e += 1;
    }
    out
}

/// Eras `lo..=hi` not in `present` nor `failed`, as ranges `a–b`.
fn gaps_text(lo: u64, hi: u64, present: &BTreeSet<u64>, failed: &BTreeSet<u64>) -> String {
    let gaps: Vec<String> = runs_of(lo, hi, present, failed)
        .into_iter()
        .filter(|r| r.2 == GAP)
        .map(|(a, b, _)| match a == b {
            true => a.to_string(),
            false => format!("{a}–{b}"),
        })
        .collect();
    match gaps.len() {
        0 => "no gaps".into(),
        n if n > 20 => format!("{n} gaps: {} …", gaps[..20].join(", ")),
        n => format!(
            "{n} gap{}: {}",
            if n == 1 { "" } else { "s" },
            gaps.join(", ")
        ),
    }
}

fn legend(h: &mut String, items: &[(&str, (u8, u8, u8))]) {
    h.push_str("<ul class=\"legend\">");
    for (name, c) in items {
        let _ = write!(
            h,
            "<li style=\"--swatch:{}\">{}</li>",
            charts::hex(*c),
            esc(name)
        );
    }
    h.push_str("</ul>\n");
}

/// The eras of one archive kind of one network: present in the output, and failed in their last run.
type PresentFailed = (BTreeSet<u64>, BTreeSet<u64>);

/// Eras present and failed, by network and archive kind.
type Eras = BTreeMap<(String, ArchiveKind), PresentFailed>;

fn coverage(h: &mut String, p: &PageInput<'_>) {
    h.push_str("<section id=\"coverage\">\n<h2>Coverage</h2>\n");
    let failed = failed_files(&p.runs.1);
    let sources: Vec<(&String, &SourceEntry)> = p
        .manifest
        .get()
        .map(|m| m.sources.iter().collect())
        .unwrap_or_default();
    let eras = coverage_eras(&sources, &failed);
    if eras.is_empty() {
        h.push_str("<figure class=\"nodata\" role=\"note\"><h4>Archives by era</h4><p>No data: the output holds no exported source and no run names a failed archive.</p></figure>\n");
    }
    let networks: BTreeSet<&String> = eras.keys().map(|(n, _)| n).collect();
    for (ni, net) in networks.into_iter().enumerate() {
        let _ = writeln!(h, "<h3>{}</h3>\n<div class=\"grid\">", esc(net));
        let kinds = |execution: bool| -> Vec<ArchiveKind> {
            ArchiveKind::ALL
                .into_iter()
                .filter(|k| k.holds().execution_blocks == execution)
                .collect()
        };
        let groups: [(&str, &str, Vec<ArchiveKind>); 2] = [
            (
                "execution",
                "Execution archives (era1, ere) by era of 8192 blocks",
                kinds(true),
            ),
            (
                "beacon",
                "Beacon archives (era) by era of 8192 slots",
                kinds(false),
            ),
        ];
        for (gi, (_, title, kinds)) in groups.iter().enumerate() {
            let rows: Vec<(ArchiveKind, &PresentFailed)> = kinds
                .iter()
                .filter_map(|k| eras.get(&(net.clone(), *k)).map(|v| (*k, v)))
                .collect();
            if !rows.is_empty() {
                coverage_figure(h, &format!("coverage-{ni}-{gi}"), net, title, &rows);
            }
        }
        h.push_str("</div>\n");
    }
    if !failed.is_empty() {
        failed_files_table(h, &failed);
    }
    if !sources.is_empty() {
        sources_table(h, &sources);
    }
    h.push_str("</section>\n");
}

/// The eras of each (network, kind): present as the manifest's sources, failed as the last runs name them.
fn coverage_eras(sources: &[(&String, &SourceEntry)], failed: &BTreeMap<String, String>) -> Eras {
    let mut eras: Eras = BTreeMap::new();
    for (name, s) in sources {
        let (k, e) = era_of(name, s);
        eras.entry((s.network.clone(), k)).or_default().0.insert(e);
    }
    for name in failed.keys() {
        if let Ok(n) = ArchiveName::parse(name) {
            eras.entry((n.network.clone(), n.kind))
                .or_default()
                .1
                .insert(n.era);
        }
    }
    eras
}

/// One group's strip of eras (a row per archive kind: present, gaps, failed) with its text alternative.
fn coverage_figure(
    h: &mut String,
    id: &str,
    net: &str,
    title: &str,
    rows: &[(ArchiveKind, &PresentFailed)],
) {
    let all = rows.iter().flat_map(|(_, (a, b))| a.iter().chain(b));
    let lo = all.clone().min().copied().unwrap_or(0);
    let hi = all.max().copied().unwrap_or(0);
    let mut desc = String::new();
    let mut strip_rows = Vec::new();
    for (k, (present, bad)) in rows {
        let (plo, phi) = match (
            present.iter().chain(bad.iter()).min(),
            present.iter().chain(bad.iter()).max(),
        ) {
            (Some(a), Some(b)) => (*a, *b),
            _ => (lo, hi),
        };
        let _ = write!(
            desc,
            "{}: {} eras present from {plo} to {phi}, {}, {} failed. ",
            ArchiveKind::extension(*k),
            present.len(),
            gaps_text(plo, phi, present, bad),
            bad.len()
        );
        strip_rows.push((
            ArchiveKind::extension(*k).to_string(),
            runs_of(plo, phi, present, bad),
        ));
    }
    let full_title = format!("{net}: {title}");
    let label = Label {
        id,
        title: &full_title,
        desc: desc.trim_end(),
    };
    let _ = writeln!(
        h,
        "<figure aria-labelledby=\"{id}-h\"><h4 id=\"{id}-h\">{}</h4>",
        esc(title)
    );
    match charts::strip(&label, lo, hi, &strip_rows) {
        Ok(svg) => h.push_str(&svg),
        Err(e) => {
            let _ = write!(h, "<p class=\"failed\">chart not drawn: {}</p>", esc(&e));
        }
    }
    legend(
        h,
        &[
            ("present (verified, exported)", PRESENT),
            ("gap", GAP),
            ("failed in its last run", FAILED),
        ],
    );
    let _ = writeln!(
        h,
        "<figcaption>{}</figcaption></figure>",
        esc(desc.trim_end())
    );
}

/// The files that failed in their last run with their first error (the first 200).
fn failed_files_table(h: &mut String, failed: &BTreeMap<String, String>) {
    let _ = writeln!(h, "<h3>Failed files</h3>\n<p>{} input file{} failed in the last run that read {}:</p>\n<div class=\"scroll\"><table><thead><tr><th scope=\"col\">file</th><th scope=\"col\">first error</th></tr></thead><tbody>",
        failed.len(), if failed.len() == 1 { "" } else { "s" }, if failed.len() == 1 { "it" } else { "them" });
    for (f, e) in failed.iter().take(200) {
        let _ = writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td></tr>",
            esc(f),
            esc(e)
        );
    }
    h.push_str("</tbody></table></div>\n");
    if failed.len() > 200 {
        let _ = writeln!(
            h,
            "<p class=\"muted\">… and {} more (the run reports list them all).</p>",
            failed.len() - 200
        );
    }
}

/// Every exported source: kind, blocks, slots, what proved it canonical, datasets and output size.
fn sources_table(h: &mut String, sources: &[(&String, &SourceEntry)]) {
    let _ = writeln!(h, "<details><summary>Sources ({}): kind, blocks, slots, canonical, datasets, sizes</summary>\n<p class=\"muted\">Every source listed was verified when exported (a file that fails verification is never exported).</p>\n<div class=\"scroll\"><table class=\"sources\"><thead><tr><th scope=\"col\">source</th><th scope=\"col\">network</th><th scope=\"col\">kind</th><th scope=\"col\">blocks</th><th scope=\"col\">slots</th><th scope=\"col\">canonical</th><th scope=\"col\">datasets</th><th scope=\"col\">bytes</th></tr></thead><tbody>", sources.len());
    for (name, s) in sources {
        let (k, _) = era_of(name, s);
        let blocks = match (k.holds().beacon_blocks, s.first_block, s.last_block) {
            (true, 0, 0) => "–".to_string(),
            (_, a, b) => format!("{a}–{b}"),
        };
        let slots = s.slots.map_or("–".to_string(), |(a, b)| format!("{a}–{b}"));
        let canonical = match s.canonical {
            Some(true) => {
                let by: Vec<String> = s
                    .canonical_by
                    .iter()
                    .map(|(a, n)| format!("{a}: {n}"))
                    .collect();
                format!("yes ({})", by.join(", "))
            }
            _ if !s.canonical_by.is_empty() => {
                let by: Vec<String> = s
                    .canonical_by
                    .iter()
                    .map(|(a, n)| format!("{a}: {n}"))
                    .collect();
                format!("partly ({})", by.join(", "))
            }
            _ => "not proven".into(),
        };
        let size: u64 = s.outputs.iter().map(|o| o.bytes).sum();
        let _ = writeln!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name), esc(&s.network), ArchiveKind::extension(k), blocks, slots, esc(&canonical), esc(&s.datasets.join(", ")), bytes(size)
        );
    }
    h.push_str("</tbody></table></div></details>\n");
}

fn runs(h: &mut String, p: &PageInput<'_>) {
    let (total, entries) = p.runs;
    h.push_str("<section id=\"runs\">\n<h2>Runs</h2>\n");
    if entries.is_empty() {
        h.push_str("<p class=\"muted\">No run reports under <code>_eraflow/runs/</code>: no run has finished here.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(
        h,
        "<p class=\"muted\">The newest {} of {} run report{}, newest first. Files count once per stage that read them (verify, export); rates are over the run's wall time.</p>",
        entries.len(),
        total,
        if *total == 1 { "" } else { "s" }
    );
    h.push_str("<div class=\"scroll\"><table><thead><tr><th scope=\"col\">started (UTC)</th><th scope=\"col\">name</th><th scope=\"col\">status</th><th scope=\"col\" class=\"n\">duration</th><th scope=\"col\" class=\"n\">files done</th><th scope=\"col\" class=\"n\">skipped</th><th scope=\"col\" class=\"n\">failed</th><th scope=\"col\" class=\"n\">blocks/s</th><th scope=\"col\" class=\"n\">transactions/s</th><th scope=\"col\" class=\"n\">peak memory</th></tr></thead><tbody>\n");
    for e in entries {
        match &e.run {
            Ok(r) => {
                let (done, skipped, failed) = r.file_counts();
                let (bps, tps) = r.rates();
                let name = match &r.shard {
                    Some(s) => format!("{} (shard {s})", r.name),
                    None => r.name.clone(),
                };
                let status = match r.status.as_str() {
                    "ok" | "failed" | "interrupted" | "running" => r.status.clone(),
                    _ => "unknown".into(),
                };
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td class=\"{status}\">{status}</td><td class=\"n\">{:.1} s</td><td class=\"n\">{done}</td><td class=\"n\">{skipped}</td><td class=\"n\">{failed}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                    esc(&r.started), esc(&name), r.seconds, charts::si(bps.round()), charts::si(tps.round()),
                    r.peak_rss_bytes.map_or("–".into(), bytes)
                );
            }
            Err(why) => {
                let _ = writeln!(h, "<tr><td colspan=\"10\"><code>{}</code>: <span class=\"failed\">unreadable</span> ({})</td></tr>", esc(&e.name), esc(why));
            }
        }
    }
    h.push_str("</tbody></table></div>\n");
    for e in entries {
        let Ok(r) = &e.run else { continue };
        let bad: Vec<(&str, &super::runs::FileView)> = r
            .stages
            .iter()
            .flat_map(|s| s.files.iter().map(move |f| (s.stage.as_str(), f)))
            .filter(|(_, f)| !f.ok && !f.skipped)
            .collect();
        if bad.is_empty() {
            continue;
        }
        let _ = writeln!(
            h,
            "<details><summary>Run of {} ({}): {} failed file{}</summary>",
            esc(&r.started),
            esc(&r.name),
            bad.len(),
            if bad.len() == 1 { "" } else { "s" }
        );
        for (stage, f) in bad.iter().take(20) {
            let _ = writeln!(
                h,
                "<div><b>{}</b> <code>{}</code></div>",
                esc(stage),
                esc(&f.file)
            );
            for err in f.errors.iter().take(10) {
                let _ = writeln!(h, "<pre class=\"err\">{}</pre>", esc(err));
            }
        }
        if bad.len() > 20 {
            let _ = writeln!(
                h,
                "<p class=\"muted\">… and {} more in <code>_eraflow/runs/{}</code>.</p>",
                bad.len() - 20,
                esc(&e.name)
            );
        }
        h.push_str("</details>\n");
    }
    h.push_str("</section>\n");
}

/// A chart figure, or a note in its place when it has nothing to show.
struct Figure<'a> {
    id: String,
    title: &'a str,
    caption: String,
    y: &'a str,
    x: XAxis,
    series: Vec<Series<'a>>,
    stacked: bool,
    /// Why there is nothing to draw, when there is nothing.
    no_data: Option<String>,
}

fn figure(h: &mut String, f: Figure<'_>) {
    let has = f.series.iter().any(|s| s.points.iter().any(|p| p.1 != 0.0));
    let _ = write!(h, "<figure aria-labelledby=\"{}-h\"", f.id);
    if f.no_data.is_some() || !has {
        let why = f.no_data.unwrap_or_else(|| "every value is zero".into());
        let _ = writeln!(
            h,
            " class=\"nodata\" role=\"note\"><h4 id=\"{}-h\">{}</h4><p>No data: {}</p></figure>",
            f.id,
            esc(f.title),
            code(&why)
        );
        return;
    }
    let _ = writeln!(h, "><h4 id=\"{}-h\">{}</h4>", f.id, esc(f.title));
    // The text alternative: the range and the extremes of each series.
    let mut desc = String::new();
    for s in &f.series {
        let (Some(first), Some(last)) = (s.points.first(), s.points.last()) else {
            continue;
        };
        let max = s
            .points
            .iter()
            .copied()
            .fold((0.0, f64::MIN), |a, p| if p.1 > a.1 { p } else { a });
        let total: f64 = s.points.iter().map(|p| p.1).sum();
        let at = |x: f64| match f.x {
            XAxis::Days => crate::util::time::utc_date(x as i64),
            XAxis::Eras => format!("era {x:.0}"),
        };
        let _ = write!(
            desc,
            "{}: {} points from {} to {}, highest {} {} at {}, total {}. ",
            s.name,
            s.points.len(),
            at(first.0),
            at(last.0),
            charts::si(max.1),
            f.y,
            at(max.0),
            charts::si(total)
        );
    }
    let label = Label {
        id: &f.id,
        title: f.title,
        desc: desc.trim_end(),
    };
    match charts::lines(&label, f.x, f.y, &f.series, f.stacked) {
        Ok(svg) => h.push_str(&svg),
        Err(e) => {
            let _ = write!(h, "<p class=\"failed\">chart not drawn: {}</p>", esc(&e));
        }
    }
    if f.series.len() > 1 {
        let items: Vec<(&str, (u8, u8, u8))> = f.series.iter().map(|s| (s.name, s.color)).collect();
        legend(h, &items);
    }
    let _ = writeln!(h, "<figcaption>{}</figcaption></figure>", code(&f.caption));
}

fn chain(h: &mut String, p: &PageInput<'_>) {
    h.push_str("<section id=\"chain\">\n<h2>The chain</h2>\n<p class=\"muted\">Aggregated from the exported Parquet files the manifest lists; days are UTC days of the block timestamp.</p>\n");
    let c = p.chain;
    let mut networks: BTreeSet<&String> = c.networks.keys().collect();
    networks.extend(p.chain.datasets.keys().map(|(_, n)| n));
    if networks.is_empty() {
        h.push_str("<figure class=\"nodata\" role=\"note\"><h4>Charts</h4><p>No data: no dataset has been exported here yet (the charts read <code>blocks</code>, <code>transactions</code>, <code>withdrawals</code>, <code>validators</code> and the token transfer datasets).</p></figure>\n");
    }
    let empty = Sums::default();
    for (ni, net) in networks.into_iter().enumerate() {
        let n = NetworkCharts {
            ni,
            net,
            s: c.networks.get(net).unwrap_or(&empty),
            charted: c.charted.get(net),
        };
        let _ = writeln!(h, "<h3>{}</h3>\n<div class=\"grid\">", esc(net));
        transaction_figures(h, &n);
        blob_and_withdrawal_figures(h, &n);
        token_figures(h, &n);
        validator_figures(h, &n);
        h.push_str("</div>\n");
    }
    if !c.unreadable.is_empty() {
        unreadable_files(h, &c.unreadable);
    }
    h.push_str("</section>\n");
}

/// One network's charts: its sums, and which charted datasets had files (a chart of one without is a note).
struct NetworkCharts<'a> {
    /// Its place on the page, numbering its figures' ids.
    ni: usize,
    net: &'a str,
    s: &'a Sums,
    charted: Option<&'a BTreeSet<String>>,
}

impl NetworkCharts<'_> {
    fn id(&self, k: &str) -> String {
        format!("chain-{}-{k}", self.ni)
    }

    /// Why a chart of dataset `d` has nothing to show, when the output has no file of it.
    fn missing(&self, d: &str) -> Option<String> {
        let has = self.charted.is_some_and(|x| x.contains(d));
        (!has).then(|| format!("no `{d}` files for {} in this output", self.net))
    }

    fn day_series(&self, f: &dyn Fn(&super::aggregate::Day) -> f64) -> Vec<(f64, f64)> {
        self.s.days.iter().map(|(d, v)| (*d as f64, f(v))).collect()
    }

    fn era_series(&self, f: &dyn Fn(&super::aggregate::Era) -> f64) -> Vec<(f64, f64)> {
        self.s.eras.iter().map(|(e, v)| (*e as f64, f(v))).collect()
    }
}

/// Transactions, gas used and transaction types per day.
fn transaction_figures(h: &mut String, n: &NetworkCharts<'_>) {
    let s = n.s;
    let tx_total: u64 = s.days.values().map(|d| d.transactions).sum();
    figure(
        h,
        Figure {
            id: n.id("txs"),
            title: "Transactions per day",
            y: "transactions",
            caption: format!(
                "{} transactions over {} days (rows of `transactions`).",
                thousands(u128::from(tx_total)),
                s.days.values().filter(|d| d.transactions > 0).count()
            ),
            x: XAxis::Days,
            stacked: false,
            no_data: n.missing("transactions"),
            series: vec![Series {
                name: "transactions",
                color: PALETTE[0],
                points: n.day_series(&|d| d.transactions as f64),
            }],
        },
    );
    let gas: u128 = s.days.values().map(|d| d.gas_used).sum();
    figure(
        h,
        Figure {
            id: n.id("gas"),
            title: "Gas used per day",
            y: "gas",
            caption: format!(
                "{} gas in {} blocks (sum of `blocks.gas_used`).",
                charts::si(gas as f64),
                thousands(u128::from(s.days.values().map(|d| d.blocks).sum::<u64>()))
            ),
            x: XAxis::Days,
            stacked: false,
            no_data: n.missing("blocks"),
            series: vec![Series {
                name: "gas used",
                color: PALETTE[1],
                points: n.day_series(&|d| d.gas_used as f64),
            }],
        },
    );
    let mut type_series = Vec::new();
    for (t, name) in TYPE_NAMES.iter().enumerate() {
        if s.days.values().any(|d| d.types[t] > 0) {
            type_series.push(Series {
                name,
                color: PALETTE[t],
                points: n.day_series(&|d| d.types[t] as f64),
            });
        }
    }
    let mix: Vec<String> = TYPE_NAMES
        .iter()
        .enumerate()
        .filter_map(|(t, name)| {
            let k: u64 = s.days.values().map(|d| d.types[t]).sum();
            (k > 0).then(|| format!("{name} {:.1}%", 100.0 * k as f64 / tx_total.max(1) as f64))
        })
        .collect();
    figure(
        h,
        Figure {
            id: n.id("types"),
            title: "Transaction types per day",
            y: "transactions",
            caption: format!(
                "Stacked by EIP-2718 type (`transactions.transaction_type`): {}.",
                mix.join(", ")
            ),
            x: XAxis::Days,
            stacked: true,
            no_data: n.missing("transactions"),
            series: type_series,
        },
    );
}

/// Blob gas and withdrawals per day (each a note before the fork that brought it).
fn blob_and_withdrawal_figures(h: &mut String, n: &NetworkCharts<'_>) {
    let s = n.s;
    let blob: u128 = s.days.values().map(|d| d.blob_gas_used).sum();
    figure(
        h,
        Figure {
            id: n.id("blob"),
            title: "Blob gas used per day",
            y: "blob gas",
            caption: format!(
                "{} blob gas (sum of `blocks.blob_gas_used`; EIP-4844, from Cancun on).",
                charts::si(blob as f64)
            ),
            x: XAxis::Days,
            stacked: false,
            no_data: n.missing("blocks").or_else(|| {
                (blob == 0).then(|| {
                    "no blob gas used in the exported blocks (blobs start at Cancun)".into()
                })
            }),
            series: vec![Series {
                name: "blob gas",
                color: PALETTE[4],
                points: n.day_series(&|d| d.blob_gas_used as f64),
            }],
        },
    );
    let wd: u64 = s.days.values().map(|d| d.withdrawals).sum();
    let gwei: u128 = s.days.values().map(|d| d.withdrawn_gwei).sum();
    figure(h, Figure {
        id: n.id("withdrawals"), title: "Withdrawals per day", y: "withdrawals",
        caption: format!("{} withdrawals of {} ETH in total (rows of `withdrawals`; from Shanghai/Capella on).", thousands(u128::from(wd)), charts::si(gwei as f64 / 1e9)),
        x: XAxis::Days, stacked: false,
        no_data: n.missing("withdrawals").or_else(|| (wd == 0).then(|| "no withdrawals in the exported blocks".into())),
        series: vec![Series { name: "withdrawals", color: PALETTE[2], points: n.day_series(&|d| d.withdrawals as f64) }],
    });
}

/// Token transfers per day, stacked by standard (a note when no token dataset was exported).
fn token_figures(h: &mut String, n: &NetworkCharts<'_>) {
    let s = n.s;
    let mut series = Vec::new();
    let mut parts = Vec::new();
    for (t, (dataset, standard)) in TOKEN_TRANSFERS.iter().enumerate() {
        let total: u64 = s.days.values().map(|d| d.token_transfers[t]).sum();
        if n.missing(dataset).is_none() {
            parts.push(format!(
                "{} {standard} (`{dataset}`)",
                thousands(u128::from(total))
            ));
        }
        if total > 0 {
            series.push(Series {
                name: standard,
                color: PALETTE[t],
                points: n.day_series(&|d| d.token_transfers[t] as f64),
            });
        }
    }
    // A note only when no token dataset has files; files without rows (no token events) say "every value is zero".
    let none = TOKEN_TRANSFERS.iter().all(|(d, _)| n.missing(d).is_some());
    figure(
        h,
        Figure {
            id: n.id("tokens"),
            title: "Token transfers per day",
            y: "transfers",
            caption: format!(
                "Stacked by standard: {} (rows; an ERC-1155 batch counts one per id).",
                parts.join(", ")
            ),
            x: XAxis::Days,
            stacked: true,
            no_data: none.then(|| {
                format!(
                    "no `erc20_transfers`, `erc721_transfers` or `erc1155_transfers` files for {} in this output",
                    n.net
                )
            }),
            series,
        },
    );
}

/// Validators and their total effective balance per era, from the era states.
fn validator_figures(h: &mut String, n: &NetworkCharts<'_>) {
    let last = n.s.eras.iter().next_back();
    figure(
        h,
        Figure {
            id: n.id("validators"),
            title: "Validators per era",
            y: "validators",
            caption: last.map_or(String::new(), |(e, v)| {
                format!(
                    "{} validators in era {e}'s state (rows of `validators` per era).",
                    thousands(u128::from(v.validators))
                )
            }),
            x: XAxis::Eras,
            stacked: false,
            no_data: n.missing("validators"),
            series: vec![Series {
                name: "validators",
                color: PALETTE[3],
                points: n.era_series(&|v| v.validators as f64),
            }],
        },
    );
    figure(h, Figure {
        id: n.id("balance"), title: "Total effective balance per era", y: "ETH",
        caption: last.map_or(String::new(), |(e, v)| format!("{} ETH of effective balance in era {e}'s state (sum of `validators.effective_balance`, Gwei / 1e9).", charts::si(v.effective_balance_gwei as f64 / 1e9))),
        x: XAxis::Eras, stacked: false, no_data: n.missing("validators"),
        series: vec![Series { name: "effective balance", color: PALETTE[5], points: n.era_series(&|v| v.effective_balance_gwei as f64 / 1e9) }],
    });
}

/// The Parquet files the manifest lists that could not be read (the first 100), and why.
fn unreadable_files(h: &mut String, unreadable: &[(String, String)]) {
    let _ = writeln!(h, "<h3>Files not read</h3>\n<p class=\"failed\">{} Parquet file{} the manifest lists could not be read; the charts and the row groups leave {} out:</p><ul>", unreadable.len(), if unreadable.len() == 1 { "" } else { "s" }, if unreadable.len() == 1 { "it" } else { "them" });
    for (f, why) in unreadable.iter().take(100) {
        let _ = writeln!(h, "<li><code>{}</code>: {}</li>", esc(f), esc(why));
    }
    h.push_str("</ul>\n");
}

fn datasets(h: &mut String, p: &PageInput<'_>) {
    h.push_str("<section id=\"datasets\">\n<h2>Datasets</h2>\n");
    let schema = p.manifest.get().map(|m| m.schema_version);
    let _ = writeln!(
        h,
        "<p>Schema version <b>{}</b>{}; each dataset's columns are described below the table, from <code>docs/schema.md</code> of this eraflow's sources.</p>",
        schema.map_or("–".into(), |v| v.to_string()),
        match schema {
            Some(v) if v != crate::datasets::SCHEMA_VERSION => format!(" <span class=\"running\">(this eraflow writes version {}: a rerun redoes every source)</span>", crate::datasets::SCHEMA_VERSION),
            _ => String::new(),
        }
    );
    if p.chain.datasets.is_empty() {
        h.push_str("<p class=\"muted\">No dataset files.</p>\n</section>\n");
        return;
    }
    let order = |d: &str| {
        crate::datasets::ALL
            .iter()
            .position(|x| x.name() == d)
            .unwrap_or(usize::MAX)
    };
    let mut rows: Vec<_> = p.chain.datasets.iter().collect();
    rows.sort_by(|a, b| {
        (order(&a.0 .0), &a.0 .0, &a.0 .1).cmp(&(order(&b.0 .0), &b.0 .0, &b.0 .1))
    });
    h.push_str("<div class=\"scroll\"><table><thead><tr><th scope=\"col\">dataset</th><th scope=\"col\">network</th><th scope=\"col\" class=\"n\">rows</th><th scope=\"col\" class=\"n\">bytes</th><th scope=\"col\" class=\"n\">files</th><th scope=\"col\" class=\"n\">row groups</th></tr></thead><tbody>\n");
    for ((d, n), s) in &rows {
        let _ = writeln!(h, "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>", esc(d), esc(n), thousands(u128::from(s.rows)), bytes(s.bytes), thousands(u128::from(s.files)), thousands(u128::from(s.row_groups)));
    }
    h.push_str("</tbody></table></div>\n");
    let mut shown: Vec<&str> = Vec::new();
    for ((d, _), _) in &rows {
        if shown.contains(&d.as_str()) {
            continue;
        }
        shown.push(d.as_str());
        if let Some((heading, text)) = schema_section(d) {
            let _ = writeln!(
                h,
                "<details><summary><code>{}</code>: its columns</summary><pre class=\"doc\">## {}\n\n{}</pre></details>",
                esc(d),
                esc(&unlinked(heading)),
                esc(&unlinked(text))
            );
        }
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::{schema_section, unlinked};

    #[test]
    fn every_dataset_has_its_columns_from_the_schema_doc_with_no_link() {
        for d in crate::datasets::ALL {
            let (heading, text) = schema_section(d.name())
                .unwrap_or_else(|| panic!("docs/schema.md has no ## {}", d.name()));
            assert!(heading.starts_with(d.name()), "{heading}");
            assert!(text.contains("| column"), "{}: no column table", d.name());
            assert!(
                !text.contains("\n## "),
                "{}: runs into the next section",
                d.name()
            );
            let shown = unlinked(text);
            assert!(
                !shown.contains("http") && !shown.contains("]("),
                "{}: {shown}",
                d.name()
            );
        }
        assert_eq!(schema_section("nope"), None);
        assert_eq!(
            unlinked("a [EIP-2718](https://eips.ethereum.org/EIPS/eip-2718) `list[binary]` [x] (y) [z](w)"),
            "a EIP-2718 `list[binary]` [x] (y) z"
        );
    }
}
