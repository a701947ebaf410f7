//! Archive kinds, their file names and opening a file of either kind: the one place that knows that `.era1`
//! is pre-merge execution history and `.era` beacon-chain history, and how both are named
//! (`<network>-<era:05>-<hash8>.<ext>`, as in the e2store format specs:
//! <https://github.com/eth-clients/e2store-format-specs>).

use super::era::EraFile;
use super::era1::Era1File;
use super::error::{FormatError, FormatErrorKind};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// The two kinds of archive file eraflow reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchiveKind {
    /// `.era1`: pre-merge execution blocks, receipts, total difficulty and the accumulator root.
    Era1,
    /// `.era`: beacon-chain blocks of one era and the BeaconState at its end.
    Era,
}

impl ArchiveKind {
    /// Both kinds, era1 first.
    pub const ALL: [ArchiveKind; 2] = [ArchiveKind::Era1, ArchiveKind::Era];

    /// The file extension without the dot, which is also the kind's name (`era1`, `era`).
    pub fn extension(self) -> &'static str {
        match self {
            ArchiveKind::Era1 => "era1",
            ArchiveKind::Era => "era",
        }
    }

    /// The kind of a path by its extension.
    pub fn of(path: &Path) -> Option<ArchiveKind> {
        let ext = path.extension()?.to_str()?;
        ArchiveKind::ALL.into_iter().find(|k| k.extension() == ext)
    }
}

impl fmt::Display for ArchiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.extension())
    }
}

/// An archive kind name that is neither `era1` nor `era`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown archive kind '{0}': era1 or era")]
pub struct UnknownArchiveKind(pub String);

impl FromStr for ArchiveKind {
    type Err = UnknownArchiveKind;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ArchiveKind::ALL
            .into_iter()
            .find(|k| k.extension() == s)
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

/// The parts of a canonical archive file name, `<network>-<era:05>-<hash8>.<era1|era>`.
///
/// era1: `hash8` is the first 4 bytes of the accumulator root. era: the first 4 bytes of the last historical
/// root or summary the state records (the genesis validators root in era 0).
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
}

impl ArchiveName {
    /// Parses a file name (not a path) of either kind.
    ///
    /// ```
    /// use eraflow::formats::{ArchiveKind, ArchiveName};
    /// let n = ArchiveName::parse("synthnet-r1-00002-00112233.era1").unwrap();
    /// assert_eq!((n.kind, n.network.as_str(), n.era), (ArchiveKind::Era1, "synthnet-r1", 2));
    /// assert_eq!(ArchiveName::format(n.kind, &n.network, n.era, &n.short_root), "synthnet-r1-00002-00112233.era1");
    /// ```
    pub fn parse(file_name: &str) -> Result<Self, FormatErrorKind> {
        let (kind, stem) = ArchiveKind::ALL
            .into_iter()
            .find_map(|k| {
                let stem = file_name.strip_suffix(k.extension())?.strip_suffix('.')?;
                Some((k, stem))
            })
            .ok_or_else(|| {
                FormatErrorKind::FileName(format!("'{file_name}' does not end in .era1 or .era"))
            })?;
        let bad = || {
            FormatErrorKind::FileName(format!(
                "'{file_name}': expected <network>-<era:05>-<hash8>.{kind}"
            ))
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

    /// The canonical file name; `root` is the accumulator root (era1) or historical root (era), of which the
    /// first 4 bytes are spelled.
    pub fn format(kind: ArchiveKind, network: &str, era: u64, root: &[u8]) -> String {
        let n = root.len().min(4);
        format!("{network}-{era:05}-{}.{kind}", hex::encode(&root[..n]))
    }
}

/// An opened (memory-mapped) archive of either kind.
pub enum Archive {
    /// A pre-merge execution archive.
    Era1(Era1File),
    /// A beacon-chain archive.
    Era(EraFile),
}

impl Archive {
    /// Opens `path` as the kind its extension names; anything not `.era` is read as era1 (a file named
    /// explicitly is kept whatever its extension, and era1 is the format that says so in its first record).
    pub fn open(path: &Path) -> Result<Archive, FormatError> {
        match ArchiveKind::of(path) {
            Some(ArchiveKind::Era) => EraFile::open(path).map(Archive::Era),
            _ => Era1File::open(path).map(Archive::Era1),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ArchiveKind {
        match self {
            Archive::Era1(_) => ArchiveKind::Era1,
            Archive::Era(_) => ArchiveKind::Era,
        }
    }

    /// The whole mapped file.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Archive::Era1(f) => f.bytes(),
            Archive::Era(f) => f.bytes(),
        }
    }

    /// Fails when the file changed since it was opened (see [`super::mapped`]).
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        match self {
            Archive::Era1(f) => f.check_unchanged(),
            Archive::Era(f) => f.check_unchanged(),
        }
    }

    /// Blocks in the file: era1 blocks, or the non-empty slots of an era file.
    pub fn block_count(&self) -> u64 {
        match self {
            Archive::Era1(f) => f.block_count(),
            Archive::Era(f) => f
                .block_index()
                .map_or(0, |i| i.offsets.iter().flatten().count() as u64),
        }
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
    }
}
