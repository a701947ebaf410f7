//! `eraflow._native`: the Python package's bindings over the eraflow library. Each function is one library
//! call (the same ones the command line makes); Arrow batches cross to Python through the Arrow C stream
//! interface, so no row is copied, and the GIL is released while archives are read.
//!
//! The command line itself is here too: the binary's `src/main.rs` is compiled into this module (not a copy:
//! the same file), and [`main`] runs it, so the package's `eraflow` script and `python -m eraflow` are the
//! `eraflow` binary, with no second build and no binary shipped beside the module.

/// The `eraflow` command line (`src/main.rs` and its `src/cli/`), compiled into the module.
#[allow(dead_code, missing_docs, unused_qualifications)]
#[path = "../../src/main.rs"]
mod cli_main;

use arrow_array::{RecordBatchIterator, RecordBatchReader};
use arrow_pyarrow::PyArrowType;
use eraflow::network::Network;
use eraflow::pipeline::config::Layers;
use eraflow::pipeline::{self, Job, JobError};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::path::PathBuf;

create_exception!(
    _native,
    EraflowError,
    PyException,
    "An eraflow error: the message names the file, offset and what was expected; `exit_status` is what the command line would exit with (1 data, 2 usage or I/O)."
);

/// A Python exception from a job error, rendered once with its causes.
fn to_py(e: JobError) -> PyErr {
    let status = e.exit_status().code();
    Python::attach(|py| {
        let err = EraflowError::new_err(eraflow::error::render(&e));
        let _ = err.value(py).setattr("exit_status", status);
        err
    })
}

fn network(name: Option<&str>) -> PyResult<Option<Network>> {
    name.map(Network::resolve)
        .transpose()
        .map_err(|e| to_py(e.into()))
}

/// Layers `flags` (a TOML table of the keys a command line would set) over the defaults.
fn job(flags: toml::Table) -> PyResult<Job> {
    Job::load(Layers {
        flags,
        ..Default::default()
    })
    .map_err(to_py)
}

fn strings(v: &[String]) -> toml::Value {
    toml::Value::Array(v.iter().cloned().map(toml::Value::String).collect())
}

/// Verifies `path` and streams `dataset`'s rows as a `pyarrow.RecordBatchReader`.
#[pyfunction]
#[pyo3(signature = (path, dataset, senders = true, network_name = None))]
fn read(
    py: Python<'_>,
    path: PathBuf,
    dataset: &str,
    senders: bool,
    network_name: Option<&str>,
) -> PyResult<PyArrowType<Box<dyn RecordBatchReader + Send>>> {
    let dataset = eraflow::datasets::by_names(&[dataset])
        .map_err(|message| {
            to_py(JobError::Invalid {
                key: "dataset",
                message,
            })
        })?
        .remove(0);
    let network = network(network_name)?;
    let read = py
        .detach(|| pipeline::read(&path, dataset, senders, network.as_ref()))
        .map_err(to_py)?;
    let reader = RecordBatchIterator::new(read.batches.into_iter().map(Ok), read.schema);
    Ok(PyArrowType(Box::new(reader)))
}

/// Verifies archives; one JSON object per file, exactly as `eraflow verify --json` prints them.
#[pyfunction]
#[pyo3(signature = (paths, network_name = None, senders = false, checksum = false))]
fn verify(
    py: Python<'_>,
    paths: Vec<String>,
    network_name: Option<String>,
    senders: bool,
    checksum: bool,
) -> PyResult<Vec<String>> {
    let mut flags = toml::Table::new();
    flags.insert("name".into(), "python-verify".into());
    flags.insert("inputs".into(), strings(&paths));
    if let Some(n) = network_name {
        flags.insert("network".into(), n.into());
    }
    let mut stage = toml::Table::new();
    stage.insert("senders".into(), senders.into());
    stage.insert("checksum".into(), checksum.into());
    flags.insert("verify".into(), toml::Value::Table(stage));
    let job = job(flags)?;
    let reports = py.detach(|| pipeline::verify(&job)).map_err(to_py)?;
    Ok(reports
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect())
}

/// Verifies and exports archives to Parquet under `out`, as `eraflow export`; returns the run report (JSON).
/// `options` holds `[export]` keys (datasets, senders, overwrite, compression, compression_level,
/// row_group_size) as a TOML table source, e.g. `senders = false`.
#[pyfunction]
#[pyo3(signature = (out, paths, network_name = None, options = ""))]
fn export(
    py: Python<'_>,
    out: String,
    paths: Vec<String>,
    network_name: Option<String>,
    options: &str,
) -> PyResult<String> {
    let stage: toml::Table = toml::from_str(options).map_err(|e| {
        to_py(JobError::Invalid {
            key: "export options",
            message: e.to_string(),
        })
    })?;
    let mut flags = toml::Table::new();
    flags.insert("name".into(), "python-export".into());
    flags.insert("inputs".into(), strings(&paths));
    flags.insert("out".into(), out.into());
    if let Some(n) = network_name {
        flags.insert("network".into(), n.into());
    }
    flags.insert("export".into(), toml::Value::Table(stage));
    let job = job(flags)?;
    let report = py.detach(|| pipeline::export(&job)).map_err(to_py)?;
    Ok(serde_json::to_string(&report).unwrap_or_default())
}

/// Uploads the run report saved at `local` to `<out>/_eraflow/runs/<its file name>` in the object store `out`
/// (`s3://…`, `gs://…`, `az://…`; credentials and endpoint from the environment, as for `eraflow`); returns the
/// object's URL, redacted. The Ray driver's merged report of a run into an object store goes there.
#[pyfunction]
fn upload_report(py: Python<'_>, out: String, local: String) -> PyResult<String> {
    use eraflow::store::output::{OutputStore, StoreError};
    use eraflow::store::url::Location;
    let bad = |message: String| {
        to_py(JobError::Invalid {
            key: "out",
            message,
        })
    };
    let url = match Location::parse(&out).map_err(|e| bad(e.to_string()))? {
        Location::Remote(u) => u,
        Location::Local(p) => return Err(bad(format!("{}: not an object-store URL", p.display()))),
    };
    let local = std::path::PathBuf::from(local);
    py.detach(|| {
        let store = OutputStore::at(&Location::Remote(url))?;
        let name = local
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rel = format!("_eraflow/runs/{name}");
        store.publish(&rel, &local)?;
        Ok(store.location(&rel))
    })
    .map_err(|e: StoreError| bad(eraflow::error::render(&e)))
}

/// Runs the `eraflow` command line over `argv` (the program name first, as `sys.argv`) and returns its exit
/// code. It prints to the process's stdout and stderr, and installs SIGTERM and SIGINT handlers for `run` and
/// `export` (a command line's process: the `eraflow` script and `python -m eraflow` call it, then exit).
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| cli_main::run(argv))
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(upload_report, m)?)?;
    m.add("EraflowError", m.py().get_type::<EraflowError>())?;
    m.add("SCHEMA_VERSION", eraflow::datasets::SCHEMA_VERSION)?;
    Ok(())
}
