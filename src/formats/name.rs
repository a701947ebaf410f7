//! Archive kinds, their file names and what each holds: the one place that knows that `.era1` is
//! pre-merge execution history, `.era` beacon-chain history and `.ere` (legacy `.erae`) execution history on both
//! sides of the merge, and how they are named (`<network>-<era:05>-<hash8>.<ext>`, ere files with an optional
//! profile suffix, as in the e2store format specs: <https://github.com/eth-clients/e2store-format-specs>).

use super::error::FormatErrorKind;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Blocks per era1 or ere file: the accumulator's list limit, and `SLOTS_PER_HISTORICAL_ROOT` on the beacon
/// chain. A file's first block is `era * 8192`.
pub const BLOCKS_PER_ERA: u64 = 8192;

/// The three kinds of archive file eraflow reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchiveKind {
    /// `.era1`: pre-merge execution blocks, receipts, total difficulty and the accumulator root.
    Era1,
    /// `.era`: beacon-chain blocks of one era and the BeaconState at its end.
    Era,
    /// `.ere` (legacy `.erae`): execution blocks of one era before or after the merge, slim receipts, total
    /// difficulty and the accumulator root over pre-merge blocks, Portal header proofs.
    Ere,
}

impl ArchiveKind {
    /// Every kind, era1 first.
    pub const ALL: [ArchiveKind; 3] = [ArchiveKind::Era1, ArchiveKind::Era, ArchiveKind::Ere];

    /// The file extension without the dot, which is also the kind's name (`era1`, `era`, `ere`).
    pub fn extension(self) -> &'static str {
        match self {
            ArchiveKind::Era1 => "era1",
            ArchiveKind::Era => "era",
            ArchiveKind::Ere => "ere",
        }
    }

    /// Every extension a file of this kind may have: ere files were first published as `.erae`, and mirrors
    /// still serve that name.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            ArchiveKind::Era1 => &["era1"],
            ArchiveKind::Era => &["era"],
            ArchiveKind::Ere => &["ere", "erae"],
        }
    }

    /// The kind of a path by its extension.
    pub fn of(path: &Path) -> Option<ArchiveKind> {
        let ext = path.extension()?.to_str()?;
        ArchiveKind::ALL
            .into_iter()
            .find(|k| k.extensions().contains(&ext))
    }

    /// The kind a path is read as: its extension's, anything else era1 (a file named explicitly is kept
    /// whatever its extension, and era1 is the format that says so in its first record).
    pub fn read_as(path: &Path) -> ArchiveKind {
        ArchiveKind::of(path).unwrap_or(ArchiveKind::Era1)
    }

    /// What files of this kind can hold, every optional component present. Which datasets a file gets is
    /// decided by this, so every file of a kind gives the same outputs (an ere file without receipts still
    /// gets an empty `logs` file, as the same era's file with receipts would give rows).
    pub fn holds(self) -> Holds {
        let none = Holds {
            execution_blocks: false,
            receipts: Receipts::None,
            proofs: false,
            post_merge: false,
            execution_payloads: false,
            beacon_blocks: false,
            state: false,
        };
        match self {
            ArchiveKind::Era1 => Holds {
                execution_blocks: true,
                receipts: Receipts::Full,
                ..none
            },
            ArchiveKind::Ere => Holds {
                execution_blocks: true,
                receipts: Receipts::Slim,
                proofs: true,
                post_merge: true,
                ..none
            },
            ArchiveKind::Era => Holds {
                post_merge: true,
                execution_payloads: true,
                beacon_blocks: true,
                state: true,
                ..none
            },
        }
    }
}

/// An execution archive's receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Receipts {
    /// None (era files, ere files of the `noreceipts` profile).
    None,
    /// Slim receipts, without blooms (ere).
    Slim,
    /// Full receipts with blooms (era1).
    Full,
}

/// What an archive holds: the capabilities code above `formats/` asks for instead of testing kinds, from a
/// file's kind ([`ArchiveKind::holds`]), its name ([`ArchiveName::holds`], for files not fetched yet) or the
/// opened file ([`super::Archive::holds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Holds {
    /// Execution blocks as header and body records, with their ommers (era1, ere).
    pub execution_blocks: bool,
    /// The execution blocks' receipts.
    pub receipts: Receipts,
    /// Portal header proofs (ere, default and `noreceipts` profiles).
    pub proofs: bool,
    /// Whether blocks may lie past the merge (and so carry withdrawals): ere and era; era1 history is
    /// pre-merge by definition.
    pub post_merge: bool,
    /// Execution payloads inside beacon blocks (era, after the merge).
    pub execution_payloads: bool,
    /// Signed beacon blocks (era).
    pub beacon_blocks: bool,
    /// The BeaconState at the era's end (era).
    pub state: bool,
}

/// What a dataset reads from an archive: a file gives the dataset rows when it [`Holds::has`] it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Need {
    /// Execution blocks in either form: header and body records, or beacon blocks' execution payloads.
    Blocks,
    /// Execution block bodies with their ommers (payloads have none).
    Ommers,
    /// Receipts.
    Receipts,
    /// Execution blocks that may carry withdrawals.
    Withdrawals,
    /// Beacon blocks.
    BeaconBlocks,
    /// The BeaconState.
    State,
}

impl Need {
    /// Whether it is execution rows, which an execution archive of the same blocks gives as well as an era file.
    pub fn is_execution(self) -> bool {
        !matches!(self, Need::BeaconBlocks | Need::State)
    }
}

impl Holds {
    /// Whether a file holding this gives rows of what `need` names.
    pub fn has(self, need: Need) -> bool {
        let blocks = self.execution_blocks || self.execution_payloads;
        match need {
            Need::Blocks => blocks,
            Need::Ommers => self.execution_blocks,
            Need::Receipts => self.receipts != Receipts::None,
            Need::Withdrawals => blocks && self.post_merge,
            Need::BeaconBlocks => self.beacon_blocks,
            Need::State => self.state,
        }
    }

    /// What a file holds by its path alone: its canonical name's (kind and profile), else its extension's kind.
    pub fn of_path(path: &Path) -> Holds {
        ArchiveName::of_path(path).map_or_else(|| ArchiveKind::read_as(path).holds(), |n| n.holds())
    }

    /// This, less the components `profile` leaves out.
    pub fn with_profile(self, profile: EreProfile) -> Holds {
        Holds {
            proofs: self.proofs && !profile.no_proofs,
            receipts: match profile.no_receipts {
                true => Receipts::None,
                false => self.receipts,
            },
            ..self
        }
    }
}

impl fmt::Display for ArchiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.extension())
    }
}

/// An archive kind name that is none of `era1`, `era`, `ere`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown archive kind '{0}': era1, era or ere")]
pub struct UnknownArchiveKind(pub String);

impl FromStr for ArchiveKind {
    type Err = UnknownArchiveKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ArchiveKind::ALL
            .into_iter()
            .find(|k| k.extensions().contains(&s))
            .ok_or_else(|| UnknownArchiveKind(s.to_string()))
    }
}

impl<'de> serde::Deserialize<'de> for ArchiveKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl serde::Serialize for ArchiveKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.extension())
    }
}

/// Which optional components an ere file leaves out, as its name's suffix says (`-noproofs`, `-noreceipts`, or
/// both in alphabetical order). The default (nothing left out) is the fully verifiable profile, whose name has no
/// suffix. era1 and era names always have the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct EreProfile {
    /// No `Proof` records (`-noproofs`).
    pub no_proofs: bool,
    /// No `CompressedSlimReceipts` records (`-noreceipts`).
    pub no_receipts: bool,
}

impl EreProfile {
    /// The profile's name suffix, with its leading dash (empty for the default profile).
    pub fn suffix(self) -> &'static str {
        match (self.no_proofs, self.no_receipts) {
            (false, false) => "",
            (true, false) => "-noproofs",
            (false, true) => "-noreceipts",
            (true, true) => "-noproofs-noreceipts",
        }
    }

    /// The profile's name as reports show it: `default`, `noproofs`, `noreceipts`, `noproofs-noreceipts`.
    pub fn name(self) -> &'static str {
        match self.suffix() {
            "" => "default",
            s => &s[1..],
        }
    }

    /// Splits a profile suffix off a file stem: `(stem without it, profile)`.
    fn split(stem: &str) -> (&str, EreProfile) {
        for p in [
            EreProfile {
                no_proofs: true,
                no_receipts: true,
            },
            EreProfile {
                no_proofs: true,
                no_receipts: false,
            },
            EreProfile {
                no_proofs: false,
                no_receipts: true,
            },
        ] {
            if let Some(rest) = stem.strip_suffix(p.suffix()) {
                return (rest, p);
            }
        }
        (stem, EreProfile::default())
    }
}

impl FromStr for EreProfile {
    type Err = String;

    /// A profile by name: `default` (header proofs and receipts), `noproofs`, `noreceipts` or
    /// `noproofs-noreceipts`; the error says which names there are.
    fn from_str(name: &str) -> Result<EreProfile, String> {
        let profile = |no_proofs, no_receipts| EreProfile {
            no_proofs,
            no_receipts,
        };
        match name {
            "default" => Ok(profile(false, false)),
            "noproofs" => Ok(profile(true, false)),
            "noreceipts" => Ok(profile(false, true)),
            "noproofs-noreceipts" => Ok(profile(true, true)),
            other => Err(format!(
                "'{other}': default (with header proofs), noproofs, noreceipts or noproofs-noreceipts"
            )),
        }
    }
}

impl fmt::Display for EreProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The parts of a canonical archive file name, `<network>-<era:05>-<hash8>.<era1|era>` or
/// `<network>-<era:05>-<hash8>(-noproofs)?(-noreceipts)?.<ere|erae>`.
///
/// era1: `hash8` is the first 4 bytes of the accumulator root. era: the first 4 bytes of the last historical
/// root or summary the state records (the genesis validators root in era 0). ere: the first 4 bytes of the hash of
/// the file's last block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveName {
    /// Which kind of archive the extension says.
    pub kind: ArchiveKind,
    /// Network preset name; it may itself contain dashes (`synthnet-r1`).
    pub network: String,
    /// Era number.
    pub era: u64,
    /// The 4 bytes the name's `hash8` spells.
    pub short_root: [u8; 4],
    /// The components the name says the file leaves out (ere only; the default elsewhere).
    pub profile: EreProfile,
}

impl ArchiveName {
    /// What a canonical archive file name looks like, for messages about a name that is not one.
    pub const PATTERN: &'static str =
        "<network>-<era:05>-<short root:8 hex>.era1 (or .era, or .ere with an \
         optional -noproofs/-noreceipts suffix), e.g. mainnet-00042-a1b2c3d4.era1";

    /// Parses a file name (not a path) of any kind.
    ///
    /// ```
    /// use eraflow::formats::{ArchiveKind, ArchiveName};
    /// let n = ArchiveName::parse("synthnet-r1-00002-00112233.era1").unwrap();
    /// assert_eq!((n.kind, n.network.as_str(), n.era), (ArchiveKind::Era1, "synthnet-r1", 2));
    /// assert_eq!(ArchiveName::format(n.kind, &n.network, n.era, &n.short_root), "synthnet-r1-00002-00112233.era1");
    ///
    /// // ere files name their profile; `.erae` is the legacy extension of the same format.
    /// let n = ArchiveName::parse("mainnet-01897-a1b2c3d4-noproofs.erae").unwrap();
    /// assert_eq!((n.kind, n.era, n.profile.name()), (ArchiveKind::Ere, 1897, "noproofs"));
    /// assert_eq!(n.file_name(), "mainnet-01897-a1b2c3d4-noproofs.ere");
    /// ```
    pub fn parse(file_name: &str) -> Result<Self, FormatErrorKind> {
        let (kind, stem) = ArchiveKind::ALL
            .into_iter()
            .find_map(|k| {
                k.extensions().iter().find_map(|ext| {
                    let stem = file_name.strip_suffix(ext)?.strip_suffix('.')?;
                    Some((k, stem))
                })
            })
            .ok_or_else(|| {
                FormatErrorKind::FileName(format!(
                    "'{file_name}' does not end in .era1, .era, .ere or .erae"
                ))
            })?;
        let bad = || {
            let profile = if kind == ArchiveKind::Ere {
                "(-noproofs)?(-noreceipts)?"
            } else {
                ""
            };
            FormatErrorKind::FileName(format!(
                "'{file_name}': expected <network>-<era:05>-<hash8>{profile}.{kind}"
            ))
        };
        let (stem, profile) = if kind == ArchiveKind::Ere {
            EreProfile::split(stem)
        } else {
            (stem, EreProfile::default())
        };
        let mut parts = stem.rsplitn(3, '-');
        let (Some(hash), Some(era), Some(network)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let mut short_root = [0u8; 4];
        if network.is_empty()
            || era.len() < 5
            || !era.bytes().all(|b| b.is_ascii_digit())
            || hash.len() != 8
        {
            return Err(bad());
        }
        hex::decode_to_slice(hash, &mut short_root).map_err(|_| bad())?;
        let era = era
            .parse()
            .map_err(|_| FormatErrorKind::FileName(format!("'{file_name}': era too large")))?;
        Ok(ArchiveName {
            kind,
            network: network.to_string(),
            era,
            short_root,
            profile,
        })
    }

    /// Parses a file name that must be of `kind` (an `.era` name is no era1 name).
    pub fn parse_as(kind: ArchiveKind, file_name: &str) -> Result<Self, FormatErrorKind> {
        match ArchiveName::parse(file_name) {
            Ok(n) if n.kind == kind => Ok(n),
            Ok(_) => Err(FormatErrorKind::FileName(format!(
                "'{file_name}' does not end in .{kind}"
            ))),
            Err(e) => Err(e),
        }
    }

    /// The name of a path's file, when it is a canonical archive name.
    pub fn of_path(path: &Path) -> Option<ArchiveName> {
        ArchiveName::parse(path.file_name()?.to_str()?).ok()
    }

    /// What the file named holds: its kind's components less those its profile leaves out.
    pub fn holds(&self) -> Holds {
        self.kind.holds().with_profile(self.profile)
    }

    /// The canonical file name of an era1 or era file, or of a default-profile ere file; `root` is the
    /// accumulator root (era1), historical root (era) or last block hash (ere), of which the first 4 bytes are
    /// spelled.
    pub fn format(kind: ArchiveKind, network: &str, era: u64, root: &[u8]) -> String {
        let mut short_root = [0u8; 4];
        let n = root.len().min(4);
        short_root[..n].copy_from_slice(&root[..n]);
        ArchiveName {
            kind,
            network: network.to_string(),
            era,
            short_root,
            profile: EreProfile::default(),
        }
        .file_name()
    }

    /// The canonical file name these parts spell (an ere file always with the `.ere` extension).
    pub fn file_name(&self) -> String {
        format!(
            "{}-{:05}-{}{}.{}",
            self.network,
            self.era,
            hex::encode(self.short_root),
            self.profile.suffix(),
            self.kind
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_format_both_kinds() {
        let n = ArchiveName::parse("sepolia-00021-b8814b14.era1").unwrap();
        assert_eq!(n.kind, ArchiveKind::Era1);
        assert_eq!((n.network.as_str(), n.era), ("sepolia", 21));
        assert_eq!(n.short_root, [0xb8, 0x81, 0x4b, 0x14]);
        let n = ArchiveName::parse("mainnet-00000-4b363db9.era").unwrap();
        assert_eq!(
            (n.kind, n.network.as_str(), n.era),
            (ArchiveKind::Era, "mainnet", 0)
        );
        assert_eq!(
            ArchiveName::format(ArchiveKind::Era, "mainnet", 0, &n.short_root),
            "mainnet-00000-4b363db9.era"
        );
        for bad in [
            "x.era2",
            "mainnet-00000-4b363db9-noproofs.era1",
            "mainnet-00000-4b363db9-noreceipts-noproofs.ere",
            "mainnet-0000-4b363db9.era",
            "mainnet-00000-4b363db.era1",
            "-00000-4b363db9.era",
            "mainnet-00000-zzzzzzzz.era1",
            "mainnet-99999999999999999999999-4b363db9.era1",
        ] {
            assert!(ArchiveName::parse(bad).is_err(), "{bad}");
        }
        assert_eq!("era".parse::<ArchiveKind>().unwrap(), ArchiveKind::Era);
        assert!("era2".parse::<ArchiveKind>().is_err());
        assert_eq!(
            ArchiveKind::of(Path::new("/a/b.era1")),
            Some(ArchiveKind::Era1)
        );
        assert_eq!(ArchiveKind::of(Path::new("/a/b.txt")), None);
        assert_eq!(
            ArchiveKind::of(Path::new("/a/b.erae")),
            Some(ArchiveKind::Ere)
        );
        assert_eq!("erae".parse::<ArchiveKind>().unwrap(), ArchiveKind::Ere);
    }

    #[test]
    fn what_a_file_holds_by_kind_name_and_profile() {
        let h = ArchiveName::parse("mainnet-00000-4bb7de2e-noproofs-noreceipts.ere")
            .unwrap()
            .holds();
        assert!(h.execution_blocks && h.post_merge && !h.proofs);
        assert_eq!(h.receipts, Receipts::None);
        assert_eq!(ArchiveKind::Ere.holds().receipts, Receipts::Slim);
        assert_eq!(ArchiveKind::Era1.holds().receipts, Receipts::Full);
        // A file of no archive extension is read as era1.
        assert_eq!(
            Holds::of_path(Path::new("x.bin")),
            ArchiveKind::Era1.holds()
        );
        let era = Holds::of_path(Path::new("d/mainnet-00000-4b363db9.era"));
        assert!(era.state && era.beacon_blocks && !era.execution_blocks);
        assert!(era.has(Need::Withdrawals) && !era.has(Need::Ommers) && !era.has(Need::Receipts));
        assert!(!ArchiveKind::Era1.holds().has(Need::Withdrawals));
    }

    #[test]
    fn ere_names_carry_their_profile() {
        for (name, network, era, profile) in [
            ("mainnet-00000-4bb7de2e.ere", "mainnet", 0, "default"),
            (
                "mainnet-00000-4bb7de2e-noproofs.ere",
                "mainnet",
                0,
                "noproofs",
            ),
            (
                "synthnet-r1-00123-4bb7de2e-noreceipts.erae",
                "synthnet-r1",
                123,
                "noreceipts",
            ),
            (
                "sepolia-00021-4bb7de2e-noproofs-noreceipts.ere",
                "sepolia",
                21,
                "noproofs-noreceipts",
            ),
        ] {
            let n = ArchiveName::parse(name).unwrap();
            assert_eq!(n.kind, ArchiveKind::Ere, "{name}");
            assert_eq!(
                (n.network.as_str(), n.era, n.profile.name()),
                (network, era, profile)
            );
            assert_eq!(n.short_root, [0x4b, 0xb7, 0xde, 0x2e]);
            assert_eq!(
                ArchiveName::parse(&n.file_name()).unwrap(),
                n,
                "{name} round trip"
            );
        }
        // A profile is part of an ere name only.
        let e = ArchiveName::parse("mainnet-00000-4bb7de2e-nothing.ere").unwrap_err();
        assert!(
            e.to_string().contains("(-noproofs)?(-noreceipts)?.ere"),
            "{e}"
        );
    }
}
