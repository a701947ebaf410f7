//! An input truncated while it is memory-mapped (issue 14, item 5): the pages past the new end read as zeros
//! instead of killing the process with SIGBUS, and the file fails as an I/O error (2) that says it changed.
//! Other files of the run are unaffected, no temporary file is left behind, and the run report is written.

use crate::util::{eraflow, synth_era1};
use eraflow::error::ExitStatus;
use eraflow::verify::VerifyOptions;
use eraflow::verify::{file_with, VerifiedBlock, Visitor};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Truncates the file being verified when the first block is visited: later blocks are read from pages the
/// file no longer has.
struct TruncateOnFirstBlock {
    path: PathBuf,
    done: AtomicBool,
}

impl Visitor for TruncateOnFirstBlock {
    type Chunk = ();
    fn start_chunk(&self, _: u64) {}
    fn block(&self, _: &mut (), _: &VerifiedBlock<'_>) {
        if !self.done.swap(true, Ordering::SeqCst) {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&self.path)
                .unwrap()
                .set_len(4096)
                .unwrap();
        }
    }
}

#[test]
fn a_file_truncated_while_verified_fails_instead_of_killing_the_process() {
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(d.path(), 4000, 2);
    let visitor = TruncateOnFirstBlock {
        path: input.clone(),
        done: AtomicBool::new(false),
    };
    let r = file_with(&input, &VerifyOptions::default(), &visitor, |_| {});
    assert!(visitor.done.load(Ordering::SeqCst));
    assert!(!r.ok);
    assert!(
        r.errors
            .iter()
            .any(|e| e.to_string().contains("changed while it was being read")),
        "{:#?}",
        r.errors
    );
    assert_eq!(r.exit_status(), ExitStatus::Usage);
}

/// How many mappings of `file` the process `pid` holds.
fn maps_of(pid: u32, file: &Path) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/maps"))
        .map(|m| m.matches(file.to_str().unwrap()).count())
        .unwrap_or(0)
}

/// The command line: the file is truncated while the export reads it (once it holds its one map of it, read
/// for the checksum and then verified; it is busy for a while, as senders are recovered). The export carries
/// on with the other file and ends with 2.
#[test]
fn an_export_survives_an_input_truncated_under_it() {
    let d = tempfile::tempdir().unwrap();
    let mut o = eraflow::synth::era1::SynthOptions::new(
        eraflow::network::Network::by_name("synthnet").unwrap(),
    );
    o.blocks = 4096;
    o.txs_per_block = 8;
    o.files = 2;
    let inputs = eraflow::synth::era1::write(&d.path().join("in"), &o).unwrap();
    let victim = &inputs[0];
    let out = d.path().join("out");
    let child = eraflow()
        .args(["--threads", "2", "export", "--out"])
        .arg(&out)
        .arg(d.path().join("in"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while maps_of(child.id(), victim) < 1 {
        assert!(
            t0.elapsed().as_secs() < 120,
            "the export never mapped {victim:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let len = std::fs::metadata(victim).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(victim)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let msg = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(2), "{msg}");
    assert!(msg.contains("changed while it was being read"), "{msg}");
    let files = crate::util::files_in(&out);
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    // The truncated file (blocks 0..4095) has no output; the other one (4096..8191... as era 1) has its.
    assert!(
        names.iter().all(|n| !n.contains("00000000_to_00004095")),
        "{names:#?}"
    );
    assert!(
        names.iter().any(|n| n.contains("00008192_to_00012287")),
        "{names:#?}"
    );
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:#?}");
    assert_eq!(
        std::fs::read_dir(out.join("_eraflow/runs"))
            .unwrap()
            .count(),
        1,
        "no run report"
    );
}

/// The file shrinks between its mapping and the read of its layout (index, trailer: the export's first reads):
/// the layout reads zeros and fails, and the failure is the file's change (exit 2), not a malformed archive.
/// This was a race in the command-line test above, which truncates once the map exists.
#[test]
fn a_file_truncated_before_its_layout_is_read_fails_as_changed() {
    use eraflow::formats::e2store::{mapped::MappedFile, MappedArchive};
    let d = tempfile::tempdir().unwrap();
    let input = synth_era1(d.path(), 4000, 2);
    let map = MappedFile::open(&input).unwrap();
    let len = std::fs::metadata(&input).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let Err(e) = eraflow::formats::era1::Era1File::read_mapped(&input, map) else {
        panic!("the layout of a shrunk file must not read");
    };
    let msg = e.to_string();
    assert!(msg.contains("changed while it was being read"), "{msg}");
    assert!(msg.contains(&input.display().to_string()), "{msg}");
    // Without the map's handle (the file read from memory), the same bytes are only malformed.
    let bytes = std::fs::read(&input).unwrap();
    let e = eraflow::formats::era1::Era1File::from_bytes(&input, &bytes)
        .err()
        .unwrap();
    assert!(!e.to_string().contains("changed"), "{e}");
}
