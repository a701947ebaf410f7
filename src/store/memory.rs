//! An in-memory [`Storage`] for tests: what shows the output protocol needs nothing of a backend but the trait.
//! Versions are ETags of a counter, conditional puts are atomic, every call is counted, and a test can make
//! "another writer" get in just before the next put of a key.

use super::output::StoreError;
use super::storage::{Guard, Meta, Put, PutIf, Storage, Version};
use crate::sink::manifest::OutputEntry;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Objects by key: bytes and the counter value they were written at.
type Objects = BTreeMap<String, (Vec<u8>, u64)>;

/// A put another writer makes first: key and bytes.
type Race = Option<(String, Vec<u8>)>;

/// A storage in memory, shared by its clones (two clones are two writers of one store).
#[derive(Debug, Clone, Default)]
pub struct MemStorage {
    objects: Arc<Mutex<Objects>>,
    next: Arc<AtomicU64>,
    /// Calls made, by every clone.
    pub calls: Arc<AtomicUsize>,
    /// Bytes another writer puts at a key just before this one's next put there.
    race: Arc<Mutex<Race>>,
}

fn version(n: u64) -> Version {
    Version::Object {
        e_tag: Some(format!("\"{n}\"")),
        version: None,
    }
}

impl MemStorage {
    fn objects(&self) -> std::sync::MutexGuard<'_, Objects> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.objects.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self, objects: &mut Objects, rel: &str, bytes: Vec<u8>) -> u64 {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        objects.insert(rel.to_string(), (bytes, n));
        n
    }

    /// The bytes at `rel`, without counting a call.
    pub fn bytes(&self, rel: &str) -> Option<Vec<u8>> {
        let o = self.objects.lock().unwrap_or_else(PoisonError::into_inner);
        o.get(rel).map(|(b, _)| b.clone())
    }

    /// Writes `bytes` at `rel` as another writer would.
    pub fn overwrite(&self, rel: &str, bytes: &[u8]) {
        let mut o = self.objects.lock().unwrap_or_else(PoisonError::into_inner);
        self.write(&mut o, rel, bytes.to_vec());
    }

    /// Lets another writer put `bytes` at `rel` just before this one's next put there.
    pub fn race(&self, rel: &str, bytes: &[u8]) {
        *self.race.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((rel.to_string(), bytes.to_vec()));
    }

    fn put(&self, rel: &str, bytes: Vec<u8>, ok: impl FnOnce(Option<u64>) -> bool) -> Put {
        let raced = {
            let mut r = self.race.lock().unwrap_or_else(PoisonError::into_inner);
            r.take_if(|(k, _)| k == rel)
        };
        let mut o = self.objects();
        if let Some((_, b)) = raced {
            self.write(&mut o, rel, b);
        }
        if !ok(o.get(rel).map(|(_, n)| *n)) {
            return Put::Conflict;
        }
        self.write(&mut o, rel, bytes);
        Put::Done
    }
}

impl Storage for MemStorage {
    fn name(&self) -> String {
        "mem://".into()
    }

    fn location(&self, rel: &str) -> String {
        format!("mem://{rel}")
    }

    fn get(&self, rel: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        Ok(self
            .objects()
            .get(rel)
            .map(|(b, n)| (b.clone(), version(*n))))
    }

    fn head(&self, rel: &str) -> Result<Option<Meta>, StoreError> {
        Ok(self.objects().get(rel).map(|(b, n)| Meta {
            size: b.len() as u64,
            version: version(*n),
            modified: None,
        }))
    }

    fn stream(
        &self,
        rel: &str,
        chunk: &mut dyn FnMut(&[u8]) -> Result<(), StoreError>,
    ) -> Result<Option<Version>, StoreError> {
        let got = self.objects().get(rel).cloned();
        let Some((b, n)) = got else { return Ok(None) };
        for part in b.chunks(3) {
            chunk(part)?;
        }
        Ok(Some(version(n)))
    }

    fn list(&self, prefix: &str) -> Result<Vec<(String, Meta)>, StoreError> {
        let o = self.objects();
        Ok(o.iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(k, (b, n))| {
                let m = Meta {
                    size: b.len() as u64,
                    version: version(*n),
                    modified: None,
                };
                (k.clone(), m)
            })
            .collect())
    }

    fn put_if(&self, rel: &str, bytes: Vec<u8>, cond: PutIf<'_>) -> Result<Put, StoreError> {
        // A staged race plays against conditional puts only: an unconditional one would overwrite it anyway.
        if let PutIf::Any = cond {
            let mut o = self.objects();
            self.write(&mut o, rel, bytes);
            return Ok(Put::Done);
        }
        Ok(self.put(rel, bytes, |cur| cond.allows(cur.map(version).as_ref())))
    }

    fn publish(&self, rel: &str, staged: &Path) -> Result<Version, StoreError> {
        let bytes = std::fs::read(staged).map_err(|source| StoreError::Local {
            path: staged.to_path_buf(),
            source,
        })?;
        let _ = std::fs::remove_file(staged);
        let mut o = self.objects();
        Ok(version(self.write(&mut o, rel, bytes)))
    }

    fn delete(&self, rel: &str) -> Result<(), StoreError> {
        self.objects().remove(rel);
        Ok(())
    }

    fn lock(&self, _name: &str) -> Result<Option<Guard>, StoreError> {
        Ok(None)
    }

    fn recorded(&self, o: &OutputEntry) -> Version {
        Version::Object {
            e_tag: o.etag.clone(),
            version: None,
        }
    }

    fn listing(&self) -> bool {
        true
    }
}
