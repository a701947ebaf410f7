//! Every block operation of a fork, with plausible contents, for synthetic era files: so each consensus dataset
//! has rows in the tests and in a user's first `eraflow synth --kind era` + `eraflow export`.
//!
//! Plausible, not valid: attestations vote for recent slots with consistent source and target checkpoints (one
//! root per epoch, one head root per slot, as on a real chain), almost fully aggregated, included mostly one
//! slot later; validator indices fall inside the state's
//! registry; an attester slashing's two attestations share some attesting indices (sorted, as the spec
//! requires); a proposer slashing's two headers have one slot and proposer; deposit requests carry consecutive
//! deposit indices. Signatures, proofs and keys are random bytes (nothing here is BLS-checked, nor by
//! verification). Every list gets at least one item, within the fork's limits.

use super::rng::Rng;
use crate::consensus::ssz::{
    self, encode_container, encode_variable_list, Container, SszError, Ty,
};
use crate::consensus::types::EXECUTION_REQUESTS_GLOAS;
use crate::consensus::{Fork, Spec};

/// What the operations of one block are drawn from.
pub struct OpsContext {
    /// The block's spec.
    pub spec: Spec,
    /// Its slot.
    pub slot: u64,
    /// Validators in the registry (indices are drawn below it; at least 1 is assumed).
    pub validators: u64,
    /// Its parent's root (what recent attestations vote for as head).
    pub parent_root: [u8; 32],
    /// The next Electra deposit index.
    pub deposit_index: u64,
}

/// The element container and limit of list field `name` of `c`.
fn list_of(c: &'static Container, name: &str) -> Option<(&'static Container, u64)> {
    match c.fields.iter().find(|f| f.name == name)?.ty {
        Ty::List(Ty::Container(e), limit) | Ty::ProgressiveList(Ty::Container(e), limit) => {
            Some((e, *limit))
        }
        _ => None,
    }
}

/// How many items of a list with `limit` (1 to 4, never above the limit; 0 when the limit is 0).
fn count(rng: &mut Rng, limit: u64) -> u64 {
    (1 + rng.below(4)).min(limit)
}

fn u64le(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// A bitlist of `len` bits with about 31 in 32 set (as mainnet's aggregates), delimiter included.
fn bitlist(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len / 8 + 1];
    for i in 0..len {
        if rng.below(32) != 0 {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out[len / 8] |= 1 << (len % 8);
    out
}

/// A root standing for what the chain had at `n` (a checkpoint of epoch `n`, the block of slot `n`): the same
/// for every attestation voting for it, as on a real chain.
fn chain_root(tag: &[u8], n: u64) -> [u8; 32] {
    let mut pre = tag.to_vec();
    pre.extend_from_slice(&n.to_le_bytes());
    crate::crypto::sha256::sha256(&pre)
}

/// `AttestationData` voting at `data_slot`: head the block of that slot (the parent for the previous slot),
/// source and target the checkpoints of the previous and current epoch.
fn attestation_data(ctx: &OpsContext, data_slot: u64, index: u64) -> Vec<u8> {
    let spe = ctx.spec.preset.slots_per_epoch();
    let target = data_slot / spe;
    let mut d = Vec::with_capacity(128);
    d.extend(u64le(data_slot));
    d.extend(u64le(index));
    d.extend(if data_slot + 1 == ctx.slot {
        ctx.parent_root
    } else {
        chain_root(b"eraflow-synth-head", data_slot)
    });
    d.extend(u64le(target.saturating_sub(1)));
    d.extend(chain_root(
        b"eraflow-synth-checkpoint",
        target.saturating_sub(1),
    ));
    d.extend(u64le(target));
    d.extend(chain_root(b"eraflow-synth-checkpoint", target));
    d
}

/// A block body's operation lists, as `(field, serialization)` to put into the body.
pub type BodyFields = Vec<(&'static str, Vec<u8>)>;

/// A block's operations.
pub struct BodyOperations {
    /// The body's operation lists.
    pub fields: BodyFields,
    /// How many deposit requests were made (the caller advances its deposit index).
    pub deposit_requests: u64,
    /// Gloas: the `ExecutionRequests` of the block's own payload, which its bid commits to
    /// (`execution_requests_root`) and its child's body carries as `parent_execution_requests`; `None` before.
    pub payload_requests: Option<Vec<u8>>,
}

/// The operation lists of a block body of `ctx.spec`. The lists are drawn in the body's field order, each
/// from `rng` in turn: that order is what keeps a seed's files the same bytes.
pub fn body_operations(ctx: &OpsContext, rng: &mut Rng) -> Result<BodyOperations, SszError> {
    let body = ssz::field_container(ctx.spec.block_schema(), "body")
        .ok_or_else(|| no_field("BeaconBlock", "body"))?;
    let fork = ctx.spec.fork;
    // Elements are evaluated left to right: the draws keep the body's field order.
    let mut out: BodyFields = vec![
        ("attestations", attestations(ctx, body, rng)?),
        ("deposits", deposits(body, rng)),
        ("voluntary_exits", voluntary_exits(ctx, rng)),
        ("proposer_slashings", proposer_slashings(ctx, rng)),
        ("attester_slashings", attester_slashings(ctx, body, rng)?),
    ];
    if fork >= Fork::Altair {
        out.push(("sync_aggregate", sync_aggregate(rng)));
    }
    if fork >= Fork::Capella {
        out.push((
            "bls_to_execution_changes",
            bls_to_execution_changes(ctx, rng),
        ));
    }
    let mut ops = BodyOperations {
        fields: out,
        deposit_requests: 0,
        payload_requests: None,
    };
    if fork >= Fork::Gloas {
        let (requests, deposits) = execution_requests(ctx, &EXECUTION_REQUESTS_GLOAS, rng)?;
        ops.payload_requests = Some(requests);
        ops.deposit_requests = deposits;
    } else if fork >= Fork::Electra {
        let req_c = ssz::field_container(body, "execution_requests")
            .ok_or_else(|| no_field("body", "execution_requests"))?;
        let (requests, deposits) = execution_requests(ctx, req_c, rng)?;
        ops.fields.push(("execution_requests", requests));
        ops.deposit_requests = deposits;
    }
    Ok(ops)
}

/// A validator index inside the registry.
fn validator(ctx: &OpsContext, rng: &mut Rng) -> u64 {
    rng.below(ctx.validators.max(1))
}

/// As many attestations as mainnet blocks carry (half full to full: 64-128 before Electra, 4-8 from it, when
/// each aggregates several committees), of committees of 64-128 members.
fn attestations(
    ctx: &OpsContext,
    body: &'static Container,
    rng: &mut Rng,
) -> Result<Vec<u8>, SszError> {
    let (att_c, att_limit) =
        list_of(body, "attestations").ok_or_else(|| no_field("body", "attestations"))?;
    let atts: Vec<Vec<u8>> = (0..att_limit / 2 + rng.below(att_limit / 2 + 1))
        .map(|_| {
            // Mostly the previous slot's, some a few slots late.
            let delay = if rng.chance(7, 10) {
                1
            } else {
                2 + rng.below(3)
            };
            let data_slot = ctx.slot.saturating_sub(delay);
            let mut fields: Vec<Vec<u8>> = Vec::new();
            if ctx.spec.fork >= Fork::Electra {
                let committees = 1 + rng.below(3) as usize;
                let mut bits = [0u8; 8];
                let first = rng.below(60) as usize;
                for c in first..first + committees {
                    bits[c / 8] |= 1 << (c % 8);
                }
                let len = committees * (64 + rng.below(64) as usize);
                fields.push(bitlist(rng, len));
                fields.push(attestation_data(ctx, data_slot, 0));
                fields.push(rng.bytes::<96>().to_vec());
                fields.push(bits.to_vec());
            } else {
                let len = 64 + rng.below(64) as usize;
                fields.push(bitlist(rng, len));
                let index = rng.below(64);
                fields.push(attestation_data(ctx, data_slot, index));
                fields.push(rng.bytes::<96>().to_vec());
            }
            encode(att_c, &fields)
        })
        .collect::<Result<_, _>>()?;
    Ok(variable(&atts))
}

/// Deposits (the Eth1 bridge, still in Electra blocks until the queue drains).
fn deposits(body: &'static Container, rng: &mut Rng) -> Vec<u8> {
    // Gloas reads none (its list's limit is 0: the Eth1 bridge's queue ended with Electra's requests).
    let limit = list_of(body, "deposits").map_or(16, |(_, l)| l);
    (0..count(rng, limit))
        .flat_map(|_| {
            let mut d = Vec::with_capacity(1240);
            for _ in 0..33 {
                d.extend(rng.bytes::<32>());
            }
            d.extend(rng.bytes::<48>());
            d.extend(credentials(rng));
            d.extend(u64le(32_000_000_000));
            d.extend(rng.bytes::<96>());
            d
        })
        .collect()
}

/// Voluntary exits of the last few epochs.
fn voluntary_exits(ctx: &OpsContext, rng: &mut Rng) -> Vec<u8> {
    let epoch = ctx.slot / ctx.spec.preset.slots_per_epoch();
    (0..count(rng, 16))
        .flat_map(|_| {
            let mut e = Vec::with_capacity(112);
            e.extend(u64le(epoch.saturating_sub(rng.below(4))));
            e.extend(u64le(validator(ctx, rng)));
            e.extend(rng.bytes::<96>());
            e
        })
        .collect()
}

/// Proposer slashings: two headers of one slot and proposer, different bodies.
fn proposer_slashings(ctx: &OpsContext, rng: &mut Rng) -> Vec<u8> {
    (0..count(rng, 16))
        .flat_map(|_| {
            let slot = ctx.slot.saturating_sub(1 + rng.below(64));
            let proposer = validator(ctx, rng);
            let mut s = Vec::with_capacity(416);
            for _ in 0..2 {
                s.extend(u64le(slot));
                s.extend(u64le(proposer));
                for _ in 0..3 {
                    s.extend(rng.bytes::<32>());
                }
                s.extend(rng.bytes::<96>());
            }
            s
        })
        .collect()
}

/// Attester slashings: a double vote whose attestations share some indices.
fn attester_slashings(
    ctx: &OpsContext,
    body: &'static Container,
    rng: &mut Rng,
) -> Result<Vec<u8>, SszError> {
    let (slashing_c, slashing_limit) = list_of(body, "attester_slashings")
        .ok_or_else(|| no_field("body", "attester_slashings"))?;
    let indexed_c = ssz::field_container(slashing_c, "attestation_1")
        .ok_or_else(|| no_field("AttesterSlashing", "attestation_1"))?;
    let slashings: Vec<Vec<u8>> = (0..count(rng, slashing_limit))
        .map(|_| {
            let data_slot = ctx.slot.saturating_sub(1 + rng.below(32));
            let common: Vec<u64> = (0..1 + rng.below(3)).map(|_| validator(ctx, rng)).collect();
            let one = |rng: &mut Rng| -> Result<Vec<u8>, SszError> {
                let mut idx: Vec<u64> = common.clone();
                idx.extend((0..rng.below(4)).map(|_| validator(ctx, rng)));
                idx.sort_unstable();
                idx.dedup();
                let indices: Vec<u8> = idx.iter().flat_map(|i| u64le(*i)).collect();
                let data = attestation_data(ctx, data_slot, 0);
                encode(indexed_c, &[indices, data, rng.bytes::<96>().to_vec()])
            };
            let (a, b) = (one(rng)?, one(rng)?);
            encode(slashing_c, &[a, b])
        })
        .collect::<Result<_, _>>()?;
    Ok(variable(&slashings))
}

/// The sync committee's aggregate (Altair on): random participation bits and signature.
fn sync_aggregate(rng: &mut Rng) -> Vec<u8> {
    let mut bits = [0u8; 64];
    rng.fill(&mut bits);
    let mut agg = bits.to_vec();
    agg.extend(rng.bytes::<96>());
    agg
}

/// BLS-to-execution credential changes (Capella on).
fn bls_to_execution_changes(ctx: &OpsContext, rng: &mut Rng) -> Vec<u8> {
    (0..count(rng, 16))
        .flat_map(|_| {
            let mut c = Vec::with_capacity(172);
            c.extend(u64le(validator(ctx, rng)));
            c.extend(rng.bytes::<48>());
            c.extend(rng.bytes::<20>());
            c.extend(rng.bytes::<96>());
            c
        })
        .collect()
}

/// Execution requests (Electra on): deposits with consecutive indices from `ctx.deposit_index`, withdrawals and
/// consolidations. Also returns how many deposit requests it holds.
fn execution_requests(
    ctx: &OpsContext,
    req_c: &'static Container,
    rng: &mut Rng,
) -> Result<(Vec<u8>, u64), SszError> {
    let deposit_requests = count(rng, 8192);
    let deposits: Vec<u8> = (0..deposit_requests)
        .flat_map(|k| {
            let mut d = Vec::with_capacity(192);
            d.extend(rng.bytes::<48>());
            d.extend(credentials(rng));
            d.extend(u64le(1_000_000_000 * (1 + rng.below(2048))));
            d.extend(rng.bytes::<96>());
            d.extend(u64le(ctx.deposit_index + k));
            d
        })
        .collect();
    let withdrawals: Vec<u8> = (0..count(rng, 16))
        .flat_map(|_| {
            let mut w = Vec::with_capacity(76);
            w.extend(rng.bytes::<20>());
            w.extend(rng.bytes::<48>());
            // A full exit now and then (amount 0).
            w.extend(u64le(if rng.chance(1, 3) {
                0
            } else {
                rng.below(1 << 36)
            }));
            w
        })
        .collect();
    let consolidations: Vec<u8> = (0..count(rng, 2))
        .flat_map(|_| {
            let mut c = Vec::with_capacity(116);
            c.extend(rng.bytes::<20>());
            c.extend(rng.bytes::<48>());
            c.extend(rng.bytes::<48>());
            c
        })
        .collect();
    let mut lists = vec![deposits, withdrawals, consolidations];
    // Gloas adds the builders' own requests (EIP-7732).
    if req_c.fields.len() > 3 {
        let builder_deposits: Vec<u8> = (0..count(rng, 2))
            .flat_map(|_| {
                let mut d = Vec::with_capacity(184);
                d.extend(rng.bytes::<48>());
                let mut creds = rng.bytes::<32>();
                // BUILDER_WITHDRAWAL_PREFIX (0xb0) and an execution address.
                creds[0] = 0xb0;
                creds[1..12].fill(0);
                d.extend(creds);
                d.extend(u64le(1_000_000_000 * (1 + rng.below(64))));
                d.extend(rng.bytes::<96>());
                d
            })
            .collect();
        let builder_exits: Vec<u8> = (0..count(rng, 2))
            .flat_map(|_| {
                let mut e = Vec::with_capacity(68);
                e.extend(rng.bytes::<20>());
                e.extend(rng.bytes::<48>());
                e
            })
            .collect();
        lists.push(builder_deposits);
        lists.push(builder_exits);
    }
    Ok((encode(req_c, &lists)?, deposit_requests))
}

/// Withdrawal credentials: BLS (0x00), execution (0x01) or compounding (0x02) with a 20-byte address.
fn credentials(rng: &mut Rng) -> [u8; 32] {
    let mut c = [0u8; 32];
    c[0] = rng.below(3) as u8;
    if c[0] == 0 {
        rng.fill(&mut c[1..]);
    } else {
        rng.fill(&mut c[12..]);
    }
    c
}

fn encode(c: &'static Container, fields: &[Vec<u8>]) -> Result<Vec<u8>, SszError> {
    let refs: Vec<&[u8]> = fields.iter().map(|f| f.as_slice()).collect();
    encode_container(c, &refs)
}

fn variable(items: &[Vec<u8>]) -> Vec<u8> {
    let refs: Vec<&[u8]> = items.iter().map(|i| i.as_slice()).collect();
    encode_variable_list(&refs)
}

fn no_field(container: &str, field: &str) -> SszError {
    SszError::new(ssz::ErrorKind::NoField {
        container: container.into(),
        field: field.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::{BeaconBlock, Preset, ALL_FORKS};

    #[test]
    fn every_fork_gets_every_operation_and_they_decode() {
        for spec in ALL_FORKS
            .into_iter()
            .flat_map(|f| [Spec::mainnet(f), Spec::new(f, Preset::Gnosis)])
        {
            let ctx = OpsContext {
                spec,
                slot: 100_000,
                validators: 500,
                parent_root: [7; 32],
                deposit_index: 40,
            };
            let mut rng = Rng::new(3, 4);
            let ops = body_operations(&ctx, &mut rng).unwrap().fields;
            let raw = crate::consensus::synth::signed_block(spec, ctx.slot, 9);
            let block_c = spec.block_schema();
            let body_c = ssz::field_container(block_c, "body").unwrap();
            let msg = &raw[100..];
            let parts = ssz::split_container(block_c, msg).unwrap();
            let refs: Vec<(&str, &[u8])> = ops.iter().map(|(n, v)| (*n, v.as_slice())).collect();
            let body = ssz::with_fields(body_c, parts[4], &refs).unwrap();
            let msg = ssz::with_fields(block_c, msg, &[("body", &body)]).unwrap();
            let block = BeaconBlock::new(&msg, spec).unwrap();
            block.root().unwrap();
            let body = block.body().unwrap();
            assert!(!body.attestation_list().unwrap().is_empty(), "{spec}");
            assert!(!body.deposit_list().unwrap().is_empty());
            assert!(!body.voluntary_exit_list().unwrap().is_empty());
            assert!(!body.proposer_slashing_list().unwrap().is_empty());
            let slashings = body.attester_slashing_list().unwrap();
            assert!(slashings.iter().all(|s| !s.slashed_indices().is_empty()));
            assert_eq!(body.sync_aggregate().is_some(), spec.fork >= Fork::Altair);
            assert_eq!(
                body.bls_to_execution_change_list().unwrap().is_empty(),
                spec.fork < Fork::Capella
            );
            if spec.fork >= Fork::Electra {
                let r = body.execution_request_lists().unwrap().unwrap();
                assert!(!r.deposits.is_empty() && !r.withdrawals.is_empty());
                assert!(!r.consolidations.is_empty());
                assert_eq!(r.deposits[0].index(), 40);
            }
            for a in body.attestation_list().unwrap() {
                let d = a.data();
                assert!(
                    d.slot() < ctx.slot
                        && d.target_epoch() == d.slot() / spec.preset.slots_per_epoch()
                );
            }
        }
    }
}
