//! Human renderings of [`FileReport`]s: the lines `eraflow verify` prints per file, and `eraflow inspect`'s
//! summary. The JSON shape is the report's own `Serialize`.

use super::report::FileReport;
use std::collections::BTreeMap;
use std::fmt::Write;

fn or_unknown<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "?".into(), |v| v.to_string())
}

fn map(m: &BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "none".into();
    }
    m.iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether an era state is tied to the chain, in words: what the report's `state_anchor` says.
fn anchor_text(a: &crate::verify::report::StateAnchor) -> String {
    use crate::verify::report::AnchorKind;
    match a.by {
        Some(AnchorKind::Trusted) => format!("anchored: its root equals the trusted one ({})", a.source),
        Some(AnchorKind::Linked) => format!(
            "anchored: {} (anchored) records its root in state_roots",
            a.source
        ),
        None => format!(
            "not anchored: {}; its root is checked against its own blocks and the next era's state only",
            a.source
        ),
    }
}

/// `OK  file  range …` (or `FAIL …`), then one line per error and warning.
pub fn verify_lines(r: &FileReport) -> String {
    let status = if r.ok { "OK  " } else { "FAIL" };
    let senders = r
        .senders_recovered
        .map_or(String::new(), |n| format!("  senders {n}"));
    let mut s = match &r.beacon {
        Some(b) => {
            let exec = match (r.first_block, r.last_block) {
                (Some(a), Some(z)) => format!("  execution blocks {a}..={z}"),
                _ => String::new(),
            };
            format!(
                "{status} {}  era {}  state slot {} ({})  beacon blocks {} (+{} empty slots){exec}  txs {}{senders}  state root {}",
                r.file,
                or_unknown(r.era),
                b.state_slot,
                b.state_fork,
                r.blocks,
                b.empty_slots,
                r.transactions,
                b.state_root
            ) + &b.bids.as_ref().filter(|x| x.bids > 0).map_or(String::new(), |x| {
                format!(
                    "\n     bids: {} ({} self-built); parent payloads revealed {}, withheld {}; availability bits checked {}",
                    x.bids, x.self_built, x.parents_revealed, x.parents_withheld, x.availability_bits_checked
                )
            }) + &format!("\n     state: {}", anchor_text(&b.state_anchor))
        }
        None => {
            let ere = r.ere.as_ref().map_or(String::new(), |x| {
                format!("  profile {}  logs {}", x.profile, r.logs)
            });
            format!(
                "{status} {}  blocks {}..={}  txs {}{senders}{ere}  accumulator {}",
                r.file,
                or_unknown(r.first_block),
                or_unknown(r.last_block),
                r.transactions,
                r.accumulator_root.as_deref().unwrap_or(match &r.ere {
                    Some(x) if x.pre_merge_blocks == 0 => "none (post-merge)",
                    Some(_) => "none",
                    None => "?",
                })
            )
        }
    };
    for c in &r.cross_checked {
        let _ = write!(s, "\n     cross-checked: {c}");
    }
    if let Some(c) = canonical_text_of(r) {
        let _ = write!(s, "\n     canonical: {c}");
    }
    for e in &r.errors {
        let _ = write!(s, "\n     error: {e}");
    }
    if r.errors_omitted > 0 {
        let _ = write!(s, "\n     ... and {} more errors", r.errors_omitted);
    }
    for w in &r.warnings {
        let _ = write!(s, "\n     warning: {w}");
    }
    s
}

/// Whether a file is proven canonical, in words.
fn canonical_text_of(r: &FileReport) -> Option<String> {
    let d = r.canonical_detail.as_ref()?;
    let by = d
        .proven
        .iter()
        .map(|(a, n)| format!("{a}: {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(match r.canonical {
        Some(true) => format!("yes, every block ({by})"),
        Some(false) => "NO: it contradicts its anchor (see the errors)".into(),
        None if by.is_empty() => format!(
            "not proven: {}",
            d.reason.as_deref().unwrap_or("nothing to check against")
        ),
        None => format!(
            "partly: {by}; {} blocks not proven: {}",
            d.not_proven,
            d.reason.as_deref().unwrap_or("?")
        ),
    })
}

/// `verify --canonical`'s summary: per network, the eras proven, unproven, wrong and missing.
pub fn canonical_text(s: &super::canonical::CanonicalSummary) -> String {
    let ranges = |v: &[(u64, u64)]| {
        if v.is_empty() {
            return "none".to_string();
        }
        v.iter()
            .map(|(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    for n in &s.networks {
        out.push(format!("canonical history of {}:", n.network));
        out.push(format!("  eras proven:   {}", ranges(&n.proven)));
        if !n.wrong.is_empty() {
            out.push(format!(
                "  eras WRONG:    {}",
                n.wrong
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for (era, why) in &n.unproven {
            out.push(format!("  era {era} not proven: {why}"));
        }
        out.push(format!(
            "  eras missing:  {} (of the pre-merge accumulator)",
            ranges(&n.missing)
        ));
    }
    out.join("\n")
}

/// `eraflow inspect`'s aligned summary of one file.
pub fn inspect_text(r: &FileReport) -> String {
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".into());
    let mut lines = vec![
        format!("file:              {}", r.file),
        format!("kind:              {}", r.kind),
        format!("network:           {}", r.network),
        format!("era:               {}", or_unknown(r.era)),
        format!(
            "size:              {} bytes, sha256 {}",
            r.file_size,
            opt(&r.sha256)
        ),
        format!(
            "blocks:            {}..={} ({})",
            or_unknown(r.first_block),
            or_unknown(r.last_block),
            r.blocks
        ),
        format!("records:           {}", map(&r.record_counts)),
        format!(
            "transactions:      {} ({})",
            r.transactions,
            map(&r.tx_kinds)
        ),
        format!(
            "receipts:          {} ({})",
            r.receipts,
            map(&r.receipt_forms)
        ),
    ];
    if let Some(b) = &r.beacon {
        lines.extend([
            format!(
                "state:             slot {} ({}), {} validators",
                b.state_slot, b.state_fork, b.validators
            ),
            format!("state root:        {}", b.state_root),
            format!("state anchored:    {}", anchor_text(&b.state_anchor)),
            format!("historical root:   {}", opt(&b.historical_root)),
            format!(
                "beacon blocks:     {} ({}), {} empty slots",
                r.blocks,
                map(&b.blocks_per_fork),
                b.empty_slots
            ),
            format!("withdrawals:       {}", b.withdrawals),
        ]);
        if let Some(x) = b.bids.as_ref().filter(|x| x.bids > 0) {
            lines.push(format!(
                "bids:              {} ({} self-built); parent payloads revealed {}, withheld {}",
                x.bids, x.self_built, x.parents_revealed, x.parents_withheld
            ));
        }
        lines.extend([
            format!("first block hash:  {}", opt(&r.first_block_hash)),
            format!("last block hash:   {}", opt(&r.last_block_hash)),
        ]);
    } else {
        if let Some(x) = &r.ere {
            lines.extend([
                format!("profile:           {}", x.profile),
                format!("components:        {}", x.components.join(", ")),
                format!(
                    "proofs:            {}",
                    if x.proof_types.is_empty() {
                        "none".to_string()
                    } else {
                        x.proof_types
                            .iter()
                            .map(|(t, n)| format!("type {t}: {n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                format!("pre-merge blocks:  {} of {}", x.pre_merge_blocks, r.blocks),
                format!("withdrawals:       {}", r.withdrawals),
            ]);
        }
        lines.extend([
            format!("logs:              {}", r.logs),
            format!("ommers:            {}", r.ommers),
            format!("header fields:     {}", map(&r.header_field_counts)),
            format!("accumulator root:  {}", opt(&r.accumulator_root)),
            format!("first block hash:  {}", opt(&r.first_block_hash)),
            format!("last block hash:   {}", opt(&r.last_block_hash)),
            format!(
                "total difficulty:  {} -> {}",
                opt(&r.initial_total_difficulty),
                opt(&r.final_total_difficulty)
            ),
        ]);
    }
    if let Some(c) = canonical_text_of(r) {
        lines.push(format!("canonical:         {c}"));
    }
    lines.push(format!(
        "verified:          {}",
        if r.ok { "yes" } else { "NO" }
    ));
    lines.extend(r.errors.iter().map(|e| format!("  error: {e}")));
    lines.extend(r.warnings.iter().map(|w| format!("  warning: {w}")));
    lines.extend(
        r.cross_checked
            .iter()
            .map(|c| format!("  cross-checked: {c}")),
    );
    lines.join("\n")
}
