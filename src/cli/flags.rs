//! Given flags as the top layer of a job: a TOML table merged over `--set`, the pipeline file and the defaults.

use eraflow::pipeline::config::Layers;
use eraflow::pipeline::{Job, JobError};
use std::path::Path;

/// The flags that were given, as a TOML table layered over everything else.
#[derive(Default)]
pub struct Flags(toml::Table);

impl Flags {
    /// Sets a dotted key (`export.compression`).
    pub fn set(&mut self, key: &str, value: toml::Value) -> &mut Self {
        let (tables, last) = key
            .rsplit_once('.')
            .map_or((None, key), |(t, l)| (Some(t), l));
        let mut t = &mut self.0;
        for part in tables.into_iter().flat_map(|t| t.split('.')) {
            let entry = t
                .entry(part)
                .or_insert_with(|| toml::Value::Table(Default::default()));
            t = entry.as_table_mut().expect("flag tables are tables");
        }
        t.insert(last.into(), value);
        self
    }
    pub fn str(&mut self, key: &str, v: Option<impl Into<String>>) -> &mut Self {
        match v {
            Some(v) => self.set(key, toml::Value::String(v.into())),
            None => self,
        }
    }
    pub fn path(&mut self, key: &str, v: &Path) -> &mut Self {
        self.str(key, Some(v.to_string_lossy()))
    }
    pub fn int(&mut self, key: &str, v: Option<impl Into<i128>>) -> &mut Self {
        match v.map(Into::into) {
            // A value past i64 stays a string, which the typed layer refuses with the key's name.
            Some(v) => self.set(
                key,
                i64::try_from(v).map_or_else(|_| v.to_string().into(), toml::Value::Integer),
            ),
            None => self,
        }
    }
    /// A switch: only `true` overrides (an absent switch leaves the lower layers alone).
    pub fn switch(&mut self, key: &str, on: bool, value: bool) -> &mut Self {
        if on {
            self.set(key, toml::Value::Boolean(value));
        }
        self
    }
    pub fn list(&mut self, key: &str, v: &[String]) -> &mut Self {
        let items = v.iter().map(|s| toml::Value::String(s.clone())).collect();
        self.set(key, toml::Value::Array(items))
    }
    pub fn stage(&mut self, name: &str) -> &mut Self {
        self.0
            .entry(name)
            .or_insert_with(|| toml::Value::Table(Default::default()));
        self
    }
    /// The job these flags describe, over the defaults (and a pipeline file and `--set`s, for `run`).
    pub fn job(
        mut self,
        threads: Option<usize>,
        file: Option<&Path>,
        sets: &[String],
    ) -> Result<Job, JobError> {
        self.int("threads", threads.map(|t| t as u64));
        Job::load(Layers {
            file,
            sets,
            flags: self.0,
        })
    }
}
