//! Trusted era state roots from a beacon node's standard REST API (`/eth/v1/beacon/...`), read through
//! `object_store`'s HTTP client like every other remote read.
//!
//! The state of era `N` is the state at slot `N * 8192` before the block of that slot (which belongs to era
//! `N + 1`'s file). The API's state at a slot is the state after that slot's block, if it has one; so a root is
//! taken only for slots without a block (`/headers/{slot}` answers 404), and a slot with a block is reported as
//! unavailable rather than compared with the wrong state.

use super::remote::RemoteError;
use super::url::{RemoteUrl, Scheme};
use crate::verify::anchor::{parse_root, TrustedStates};
use object_store::path::Path as ObjPath;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt};
use std::sync::Arc;

/// Answers larger than this are not a beacon API's root or header answer.
const MAX_ANSWER: u64 = 64 << 10;

/// One era state to ask a node for: the network's name, its genesis validators root (from its preset; `None`
/// for a network eraflow has no preset of), and the state's slot.
pub type Wanted = (String, Option<[u8; 32]>, u64);

/// The trusted state roots a beacon node at `url` (for example `http://localhost:5052`) gives for `wanted`.
/// A state of another network than the node's (by genesis validators root), a slot the node has no state for,
/// or whose state would not be the era state, is listed as unavailable with the reason; a node that cannot be
/// reached at all is an error.
pub fn state_roots(url: &RemoteUrl, wanted: &[Wanted]) -> Result<TrustedStates, RemoteError> {
    let open = |source| RemoteError::Open {
        url: url.redacted(),
        source,
    };
    let rt = super::runtime::runtime().map_err(|source| RemoteError::Local {
        path: std::path::PathBuf::from("tokio runtime"),
        source,
    })?;
    let store: Arc<dyn ObjectStore> = Arc::new(
        object_store::http::HttpBuilder::new()
            .with_url(format!("{}://{}", url.scheme().name(), url.authority()))
            .with_client_options(ClientOptions::new().with_allow_http(url.scheme() == Scheme::Http))
            .with_retry(super::runtime::RETRY.object_store())
            .build()
            .map_err(open)?,
    );
    let base = url.path().trim_end_matches('/');
    let key = |rest: String| match base.is_empty() {
        true => ObjPath::from(rest),
        false => ObjPath::from(format!("{base}/{rest}")),
    };
    // GET one small JSON answer; Ok(None) on 404.
    let get = |k: ObjPath| -> Result<Option<serde_json::Value>, RemoteError> {
        rt.block_on(async {
            let request = |source| RemoteError::Request {
                location: format!("{}/{k}", url.redacted().trim_end_matches('/')),
                source,
            };
            match store.get(&k).await {
                Ok(r) if r.meta.size > MAX_ANSWER => Ok(Some(serde_json::Value::Null)),
                Ok(r) => {
                    let bytes = r.bytes().await.map_err(request)?;
                    Ok(Some(
                        serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
                    ))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(request(e)),
            }
        })
    };
    let mut t = TrustedStates {
        source: format!("beacon node {}", url.redacted()),
        ..Default::default()
    };
    let genesis = get(key("eth/v1/beacon/genesis".into()))?.unwrap_or_default();
    let gvr = genesis["data"]["genesis_validators_root"]
        .as_str()
        .and_then(parse_root);
    for (network, want_gvr, slot) in wanted {
        let (network, slot) = (network.clone(), *slot);
        match (gvr, want_gvr) {
            (Some(g), Some(w)) if g == *w => {}
            (_, None) => {
                t.unavailable.insert(
                    (network, slot),
                    "no preset for this network, so no genesis validators root to match the node's"
                        .into(),
                );
                continue;
            }
            (Some(g), Some(_)) => {
                t.unavailable.insert(
                    (network, slot),
                    format!(
                        "the node serves another network (genesis validators root 0x{})",
                        hex::encode(g)
                    ),
                );
                continue;
            }
            (None, Some(_)) => {
                t.unavailable.insert(
                    (network, slot),
                    "the node names no genesis validators root (eth/v1/beacon/genesis)".into(),
                );
                continue;
            }
        }
        if get(key(format!("eth/v1/beacon/headers/{slot}")))?.is_some() {
            t.unavailable.insert(
                (network, slot),
                format!("slot {slot} has a block, and the API's state at that slot is after it (the era state is before it)"),
            );
            continue;
        }
        match get(key(format!("eth/v1/beacon/states/{slot}/root")))? {
            None => {
                t.unavailable
                    .insert((network, slot), format!("no state for slot {slot}"));
            }
            Some(v) => match v["data"]["root"].as_str().and_then(parse_root) {
                Some(root) => {
                    t.roots.insert((network, slot), root);
                }
                None => {
                    t.unavailable.insert(
                        (network, slot),
                        format!("the answer for slot {slot} holds no data.root of 32 bytes"),
                    );
                }
            },
        }
    }
    Ok(t)
}
