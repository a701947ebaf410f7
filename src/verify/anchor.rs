//! Anchoring era states to roots from outside the file.
//!
//! An era file's checks prove that its blocks hang together and agree with its own `BeaconState` (block roots,
//! historical entry, latest header), but the state itself is committed only by the next block's `state_root`
//! after a state transition, which eraflow does not run. So a consistent rewrite of a state (and of the roots
//! it records) verifies. What ties a state to the real chain is its `hash_tree_root` compared with a root from
//! outside: a trusted list of `(slot, state root)` pairs (a file, or a beacon node's answers), or, for the state
//! of era `N`, the link to era `N + 1`'s state when slot `N * 8192` is empty (its `state_roots` entry is then
//! this state's root; see [`crate::verify::verify_archives`]): an anchored next state anchors this one.
//!
//! [`apply`] runs after the files are verified: a trusted root that differs fails the file; the report of every
//! era file says whether and how its state was anchored.

use super::hex0x;
use super::report::{AnchorKind, EraLinks, FileReport, StateAnchor};
use std::collections::BTreeMap;

/// Trusted `(slot, state root)` pairs, and where they came from.
#[derive(Debug, Clone, Default)]
pub struct TrustedStates {
    /// Where the roots came from (a file path, or a beacon node's URL, redacted), for reports.
    pub source: String,
    /// State root by (network name, slot); the network `""` stands for any network.
    pub roots: BTreeMap<(String, u64), [u8; 32]>,
    /// (network, slot)s asked for that the source could not give a root for, and why (a beacon node of
    /// another network, without that state, or whose answer would not be the era state): reported, never
    /// guessed.
    pub unavailable: BTreeMap<(String, u64), String>,
}

/// A line of a trusted-states file that is not a `(slot, root)` pair.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}:{line}: expected '[<network>] <slot> <0x state root (32 bytes)>', found '{found}'")]
pub struct TrustedStatesError {
    /// The file.
    pub source_name: String,
    /// The 1-based line.
    pub line: usize,
    /// The line as found (cut to 120 characters).
    pub found: String,
}

/// Parses a 32-byte root given as hex, with or without `0x`.
pub fn parse_root(s: &str) -> Option<[u8; 32]> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    let mut out = [0u8; 32];
    hex::decode_to_slice(s, &mut out).ok()?;
    Some(out)
}

impl TrustedStates {
    /// The trusted root for `slot` of `network` (a line naming the network, else one naming none).
    pub fn root(&self, network: &str, slot: u64) -> Option<&[u8; 32]> {
        self.roots
            .get(&(network.to_string(), slot))
            .or_else(|| self.roots.get(&(String::new(), slot)))
    }

    /// Parses a trusted-states file: one `[<network>] <slot> <state root>` per line, separated by spaces, a tab
    /// or a comma (so `slot,state_root` CSV with that header works too); blank lines and `#` comments are
    /// skipped. A line without a network applies to every network (slot 0 of mainnet and of sepolia are two
    /// states: name the network when the inputs mix networks). The same slot twice with two roots is an error.
    pub fn parse(source: &str, text: &str) -> Result<TrustedStates, TrustedStatesError> {
        let mut roots = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() || (i == 0 && line.eq_ignore_ascii_case("slot,state_root")) {
                continue;
            }
            let bad = || TrustedStatesError {
                source_name: source.to_string(),
                line: i + 1,
                found: raw.chars().take(120).collect(),
            };
            let mut parts = line
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|p| !p.is_empty());
            let fields: Vec<&str> = parts.by_ref().take(4).collect();
            let (network, slot, root) = match fields[..] {
                [slot, root] => ("", slot, root),
                [network, slot, root] => (network, slot, root),
                _ => return Err(bad()),
            };
            let slot: u64 = slot.parse().map_err(|_| bad())?;
            let root = parse_root(root).ok_or_else(bad)?;
            if roots
                .insert((network.to_string(), slot), root)
                .is_some_and(|old| old != root)
            {
                return Err(TrustedStatesError {
                    found: format!("slot {slot} listed twice with two roots"),
                    ..bad()
                });
            }
        }
        Ok(TrustedStates {
            source: source.to_string(),
            roots,
            unavailable: BTreeMap::new(),
        })
    }
}

/// Compares each era report's state root with `trusted` (a difference fails the file), then anchors the states
/// linked to an anchored next state, and records the outcome in every era report.
pub fn apply(reports: &mut [FileReport], trusted: Option<&TrustedStates>) {
    for r in reports.iter_mut() {
        let (file, network) = (r.file.clone(), r.network.clone());
        let Some(b) = r.beacon.as_mut() else {
            continue;
        };
        let Some(own) = b.links.state_root else {
            b.state_anchor = StateAnchor::not("the state root could not be computed");
            continue;
        };
        let Some(t) = trusted else {
            b.state_anchor = StateAnchor::not("no trusted state roots given (--trusted-states)");
            continue;
        };
        let slot = b.state_slot;
        b.state_anchor = match t.root(&network, slot) {
            Some(want) if *want == own => StateAnchor {
                anchored: true,
                by: Some(AnchorKind::Trusted),
                source: t.source.clone(),
            },
            Some(want) => {
                let msg = format!(
                    "{file}: state root of slot {slot}: expected {} (trusted, from {}), found {}",
                    hex0x(want),
                    t.source,
                    hex0x(&own)
                );
                b.state_anchor = StateAnchor::not("its root differs from the trusted one");
                r.error(msg);
                continue;
            }
            None => match t.unavailable.get(&(network.clone(), slot)) {
                Some(why) => StateAnchor::not(format!("{}: {why}", t.source)),
                None => StateAnchor::not(format!(
                    "{} has no root for slot {slot} of {network}",
                    t.source
                )),
            },
        };
    }
    // Anchors flow backwards along the empty-slot links, newest era first. A broken link is already an error
    // of the next file (verify_files); it anchors nothing.
    let mut order: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].era.is_some() && reports[i].beacon.is_some())
        .collect();
    order.sort_by_key(|&i| {
        (
            reports[i].network.clone(),
            std::cmp::Reverse(reports[i].era),
        )
    });
    for w in order.windows(2) {
        let (next, prev) = (w[0], w[1]);
        if reports[next].network != reports[prev].network
            || reports[prev].era.map(|e| e + 1) != reports[next].era
            || !reports[next].ok
        {
            continue;
        }
        let links = |i: usize| {
            reports[i]
                .beacon
                .as_ref()
                .map(|b| (b.links.clone(), b.state_anchor.anchored))
                .unwrap_or((EraLinks::default(), false))
        };
        let ((next_links, next_anchored), (prev_links, prev_anchored)) = (links(next), links(prev));
        let linked = matches!(
            (prev_links.state_root, next_links.first_slot_state_root),
            (Some(a), Some(b)) if a == b
        );
        if next_anchored && linked && !prev_anchored && reports[prev].ok {
            let source = reports[next].file.clone();
            if let Some(b) = reports[prev].beacon.as_mut() {
                b.state_anchor = StateAnchor {
                    anchored: true,
                    by: Some(AnchorKind::Linked),
                    source,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_states_files_parse_strictly() {
        let r = "0x".to_string() + &"ab".repeat(32);
        let text = format!(
            "slot,state_root\n# comment\n\n8192 {r}\n16384,{}  # trailing\nsepolia 0 {r}\n",
            &r[2..]
        );
        let t = TrustedStates::parse("t.txt", &text).unwrap();
        assert_eq!(t.roots.len(), 3);
        assert_eq!(t.root("mainnet", 8192), Some(&[0xab; 32]));
        assert_eq!(t.root("sepolia", 0), Some(&[0xab; 32]));
        assert_eq!(t.root("mainnet", 0), None);
        for bad in [
            "8192".to_string(),
            "x 0xab".to_string(),
            "8192 0xabcd".to_string(),
            format!("a 1 {r} 3"),
            format!("1 {r}\n1 0x{}", "cd".repeat(32)),
        ] {
            let e = TrustedStates::parse("t.txt", &bad).unwrap_err().to_string();
            assert!(
                e.starts_with("t.txt:") && e.contains("<slot> <0x state root"),
                "{e}"
            );
        }
    }
}
