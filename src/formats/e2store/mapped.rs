//! Surviving an input that shrinks while it is memory-mapped.
//!
//! Archives are read through a read-only `mmap`. If another process truncates a mapped file, touching a page
//! past the new end raises SIGBUS, whose default action kills the whole process (exit 135): every other file
//! of the run lost, temporary files left behind, no run report. On Linux, eraflow instead registers each
//! mapping here; a SIGBUS inside a registered mapping replaces the faulting page with a page of zeros (an
//! anonymous read-only mapping over it, `MAP_FIXED`), marks the mapping as faulted and returns, so the read
//! sees zeros and the file's verification goes on to fail. [`Era1File`](crate::formats::era1::Era1File) and
//! [`EraFile`](crate::formats::era::EraFile) check [`MapGuard::fault`] and the file's size and modification time
//! again once the file is processed, and fail it with [`crate::formats::FormatErrorKind::Changed`]
//! — an I/O error (exit 2) — so nothing verified or exported ever rests on bytes that changed underneath.
//!
//! A SIGBUS outside every registered mapping is not ours: the handler reinstalls the previous action (Rust's
//! own, or the default) and returns, so the faulting access repeats and ends as it would have without
//! eraflow. On other platforms registration is a no-op and the contract is the usual one of `mmap` readers:
//! inputs must not be truncated while eraflow reads them.
//!
//! The contract eraflow offers, either way: archives are inputs, not shared state. A file replaced by rename
//! is harmless (the old inode stays mapped); a file rewritten or truncated in place while it is read fails
//! that file with exit 2 on Linux.

use crate::formats::error::{FormatError, FormatErrorKind};
use memmap2::Mmap;
use std::fs::File;
use std::path::Path;
use std::time::SystemTime;

/// An archive's bytes: a read-only map of a file, guarded against the file shrinking underneath (see the
/// module docs), or a copy of bytes in memory (fuzzing, tests).
pub struct MappedFile {
    // Declared before `map`: the guard must unregister before the map is unmapped.
    guard: MapGuard,
    map: Mmap,
    /// The open file and its size and modification time when mapped (`None` for bytes from memory).
    file: Option<Opened>,
}

/// An open file with its size and modification time when it was mapped: what [`MappedFile::check_unchanged`]
/// compares against. Kept by handle, not by path: a file replaced by rename is not a change (the mapped inode
/// stays), a file truncated or rewritten in place is.
#[derive(Debug)]
pub struct Opened {
    file: File,
    len: u64,
    modified: Option<SystemTime>,
}

impl Opened {
    /// Fails with [`FormatErrorKind::Changed`] when the file's size or modification time is not what it was
    /// when mapped.
    pub fn check(&self) -> Result<(), FormatError> {
        let meta = self
            .file
            .metadata()
            .map_err(|e| FormatError::at(0, FormatErrorKind::Io(e.into())))?;
        if meta.len() != self.len {
            return Err(changed(format!(
                "{} bytes when opened, {} now",
                self.len,
                meta.len()
            )));
        }
        if meta.modified().ok() != self.modified {
            return Err(changed("its modification time changed".into()));
        }
        Ok(())
    }
}

/// The error of a file that is not what was mapped any more: `what` says how.
fn changed(what: String) -> FormatError {
    FormatError::at(0, FormatErrorKind::Changed(what))
}

impl MappedFile {
    /// Maps `path` read-only.
    pub fn open(path: &Path) -> Result<MappedFile, FormatError> {
        let io =
            |e: std::io::Error| FormatError::at(0, FormatErrorKind::Io(e.into())).in_file(path);
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        // SAFETY: a read-only map of an archive. The file changing underneath breaks the immutability a
        // `&[u8]` promises; eraflow's answer is the guard (a shrunk file reads as zeros instead of killing
        // the process) and `check_unchanged` after processing, which fails the file. See the module docs.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        Ok(MappedFile {
            guard: MapGuard::register(&map),
            map,
            file: Some(Opened {
                file,
                len: meta.len(),
                modified: meta.modified().ok(),
            }),
        })
    }

    /// A copy of `bytes` in an anonymous map, as if it were a file (no file to change underneath).
    pub fn from_bytes(bytes: &[u8]) -> std::io::Result<MappedFile> {
        let mut m = memmap2::MmapOptions::new().len(bytes.len()).map_anon()?;
        m.copy_from_slice(bytes);
        let map = m.make_read_only()?;
        Ok(MappedFile {
            guard: MapGuard::register(&[]),
            map,
            file: None,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Fails when the file is not what was mapped any more: a page could not be read (SIGBUS: the file
    /// shrank, or the device failed) and read as zeros, or the file's size or modification time changed.
    /// Call it after the file was processed: a file that fails it must not count as verified.
    pub fn check_unchanged(&self) -> Result<(), FormatError> {
        let Some(opened) = &self.file else {
            return Ok(());
        };
        if let Some(at) = self.guard.fault() {
            return Err(changed(format!(
                "the page at byte offset {at} could not be read while mapped (SIGBUS: the file shrank or \
                 the device failed) and read as zeros"
            )));
        }
        opened.check()
    }

    /// A second handle on the mapped file with its size and modification time, to check it after the map is
    /// gone: reading a file's layout consumes its map, and a layout that fails to read because the file
    /// shrank underneath must fail as changed (an I/O error), not as a malformed archive. `None` for bytes
    /// from memory, or when the handle cannot be duplicated.
    pub fn opened(&self) -> Option<Opened> {
        let o = self.file.as_ref()?;
        Some(Opened {
            file: o.file.try_clone().ok()?,
            len: o.len,
            modified: o.modified,
        })
    }
}

/// A registered mapping; unregisters when dropped (before the map is unmapped: declare it before the `Mmap`
/// in a struct, as fields drop in declaration order).
#[derive(Debug)]
pub struct MapGuard {
    #[cfg(target_os = "linux")]
    slot: Option<usize>,
    #[cfg(target_os = "linux")]
    start: usize,
}

impl MapGuard {
    /// Registers the mapping `bytes` (installing the SIGBUS handler on first use). A process with more
    /// mappings open than there are slots leaves the extra ones unguarded.
    pub fn register(bytes: &[u8]) -> MapGuard {
        #[cfg(target_os = "linux")]
        {
            let start = bytes.as_ptr() as usize;
            MapGuard {
                slot: linux::register(start, bytes.len()),
                start,
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = bytes;
            MapGuard {}
        }
    }

    /// The offset of the first page that faulted (SIGBUS) and now reads as zeros, if any did.
    pub fn fault(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            let slot = self.slot?;
            let addr = linux::SLOTS[slot]
                .fault
                .load(std::sync::atomic::Ordering::Acquire);
            (addr != 0).then(|| addr.saturating_sub(self.start) as u64)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

impl Drop for MapGuard {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(slot) = self.slot {
            linux::unregister(slot);
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Once;

    /// Concurrent mappings guarded; files are mapped a few per worker thread at most.
    const SLOTS_LEN: usize = 1024;

    pub(super) struct Slot {
        used: AtomicBool,
        start: AtomicUsize,
        /// 0 while the slot is free or being filled.
        end: AtomicUsize,
        /// Address of the first page replaced by zeros (0: none).
        pub(super) fault: AtomicUsize,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const FREE: Slot = Slot {
        used: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        fault: AtomicUsize::new(0),
    };

    pub(super) static SLOTS: [Slot; SLOTS_LEN] = [FREE; SLOTS_LEN];
    static PAGE: AtomicUsize = AtomicUsize::new(4096);
    static INSTALL: Once = Once::new();
    /// Whether the handler is installed (it is not if `sigaction` failed).
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    /// The action before ours, put back for a SIGBUS that is not ours. Written once, before the handler is
    /// installed, and only read afterwards.
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::zeroed();

    pub(super) fn register(start: usize, len: usize) -> Option<usize> {
        INSTALL.call_once(install);
        if len == 0 || !INSTALLED.load(Ordering::Acquire) {
            return None;
        }
        let slot = SLOTS.iter().position(|s| {
            s.used
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        let s = &SLOTS[slot];
        s.fault.store(0, Ordering::Relaxed);
        s.start.store(start, Ordering::Relaxed);
        s.end.store(start + len, Ordering::Release);
        Some(slot)
    }

    pub(super) fn unregister(slot: usize) {
        let s = &SLOTS[slot];
        s.end.store(0, Ordering::Release);
        s.start.store(0, Ordering::Relaxed);
        s.used.store(false, Ordering::Release);
    }

    fn install() {
        // SAFETY: sysconf and sigaction are called with valid arguments; PREVIOUS is written here, once,
        // before the handler that reads it can run (it is installed by the same sigaction call that fills
        // PREVIOUS).
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE);
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let previous = std::ptr::addr_of_mut!(PREVIOUS).cast::<libc::sigaction>();
            if libc::sigaction(libc::SIGBUS, &action, previous) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    }

    /// Async-signal-safe: atomics and two system calls (mmap, sigaction), no allocation, no locks.
    extern "C" fn handler(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for a SA_SIGINFO handler; si_addr is the faulting
        // address for SIGBUS.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for s in SLOTS.iter() {
            let end = s.end.load(Ordering::Acquire);
            let start = s.start.load(Ordering::Relaxed);
            if end == 0 || addr < start || addr >= end {
                continue;
            }
            let at = addr & !(page - 1);
            // SAFETY: `at` is a page inside a live read-only mapping that eraflow owns (registered and not yet
            // unregistered, which happens before it is unmapped); replacing it with zeros changes only what
            // that mapping reads.
            let r = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                let _ =
                    s.fault
                        .compare_exchange(0, addr.max(1), Ordering::AcqRel, Ordering::Relaxed);
                return;
            }
            break;
        }
        // Not ours (or the page could not be replaced): the previous action handles the repeated fault.
        // SAFETY: PREVIOUS was filled by the sigaction call that installed this handler.
        unsafe {
            libc::sigaction(
                libc::SIGBUS,
                std::ptr::addr_of!(PREVIOUS).cast::<libc::sigaction>(),
                std::ptr::null_mut(),
            );
        }
    }
}
