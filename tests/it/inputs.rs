//! Input listing (issue 14, item 9): each real file once, whatever symlinks, loops or overlapping inputs lead
//! to it.

use crate::util::{eraflow, run, synth_era1};
use std::os::unix::fs::symlink;

#[test]
fn a_dangling_symlink_in_a_folder_is_an_io_error() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    synth_era1(&dir, 10, 1);
    symlink("gone.era1", dir.join("synthnet-00001-00000000.era1")).unwrap();
    let (c, out, err) = run(eraflow().args(["verify", dir.to_str().unwrap()]));
    assert_eq!(c, Some(2), "{out}{err}");
    assert!(out.contains("No such file"), "{out}");
}
