//! Input listing (issue 14, item 9): each real file once, whatever symlinks, loops or overlapping inputs lead
//! to it.

use crate::util::{eraflow, run, synth_era1};
use std::os::unix::fs::symlink;

#[test]
fn a_symlink_loop_and_aliases_list_each_file_once() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("in");
    let file = synth_era1(&dir, 10, 1);
    // in/sub/up -> .. (back to in/): walking it naively lists the file again at every level, ~40 times.
    std::fs::create_dir(dir.join("sub")).unwrap();
    symlink("..", dir.join("sub/up")).unwrap();
    // Two other names for the same file, and a second symlink to the same directory.
    symlink(file.file_name().unwrap(), dir.join("alias.era1")).unwrap();
    symlink(&dir, d.path().join("again")).unwrap();

    let listed = eraflow::inputs::expand(&[
        dir.to_str().unwrap(),
        d.path().join("again").to_str().unwrap(),
        file.to_str().unwrap(),
    ])
    .unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");

    let (c, out, err) = run(eraflow().args(["verify", dir.to_str().unwrap()]));
    assert_eq!(c, Some(0), "{out}{err}");
    assert!(out.contains("1 files, 1 verified, 0 failed"), "{out}");
    assert!(err.contains("symlink loop"), "{err}");

    let out_dir = d.path().join("out");
    let (c, out, err) = run(eraflow().args([
        "export",
        "--datasets",
        "blocks",
        "--out",
        out_dir.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]));
    assert_eq!(c, Some(0), "{out}{err}");
    assert!(out.contains("export: 1 files"), "{out}");
}

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
