// The consensus datasets' rows, computed independently from Lodestar's decoding (@lodestar/types on
// @chainsafe/ssz) of the same blocks and states eraflow exported.
//
// Usage: [LODESTAR_PRESET=gnosis] node rows.mjs DIR
// DIR/cases.json lists {"id", "blocks": [{"file", "fork", "signed"}], "states": [{"file", "fork", "era"}]}
// (written by tests/it/consensus_crosscheck.rs). Writes DIR/lodestar-rows.json: {id: {dataset: [row, ...]}},
// every value rendered as eraflow's test renders Parquet cells: integers as decimal strings, bytes as 0x-hex,
// booleans, null, lists of integers as arrays of decimal strings. Column names are eraflow's (docs/schema.md);
// everything else — field access, roots, bit counts, intersections, versioned hashes — is computed here.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ssz } from "@lodestar/types";
import { keccak_256 } from "@noble/hashes/sha3";

const dir = process.argv[2];
const cases = JSON.parse(readFileSync(join(dir, "cases.json"), "utf8"));
const FAR_FUTURE = "18446744073709551615";
const hex = (b) => "0x" + Buffer.from(b).toString("hex");
const int = (v) => (v === Infinity ? FAR_FUTURE : BigInt(v).toString());
const zero = (b) => Buffer.from(b).every((x) => x === 0);

// The previous block of the case (its bid or payload): what a Gloas bid's parent payload status is judged by.
let previous = null;

function blockRows(out, fork, signed, bytes, payloadTransactions) {
  const t = ssz[fork];
  const block = signed ? t.SignedBeaconBlock.deserialize(bytes).message : t.BeaconBlock.deserialize(bytes);
  const body = block.body;
  const slot = int(block.slot);
  const root = hex(t.BeaconBlock.hashTreeRoot(block));
  const key = (i) => ({ slot, block_root: root, index_in_block: int(i) });
  const push = (name, row) => (out[name] ??= []).push(row);

  body.attestations.forEach((a, i) => {
    const bitsType = t.Attestation.fields.aggregationBits;
    const committees = a.committeeBits
      ? a.committeeBits.getTrueBitIndexes().map(int)
      : [int(a.data.index)];
    const delay = block.slot >= a.data.slot ? int(block.slot - a.data.slot) : null;
    push("attestations", {
      ...key(i),
      attestation_slot: int(a.data.slot),
      committee_index: int(a.data.index),
      committee_bits: a.committeeBits ? hex(a.committeeBits.uint8Array) : null,
      committee_indices: committees,
      aggregation_bits: hex(bitsType.serialize(a.aggregationBits)),
      aggregation_bits_length: int(a.aggregationBits.bitLen),
      attesting_count: int(a.aggregationBits.getTrueBitIndexes().length),
      beacon_block_root: hex(a.data.beaconBlockRoot),
      source_epoch: int(a.data.source.epoch),
      source_root: hex(a.data.source.root),
      target_epoch: int(a.data.target.epoch),
      target_root: hex(a.data.target.root),
      inclusion_delay: delay,
      signature: hex(a.signature),
    });
  });
  body.deposits.forEach((d, i) =>
    push("deposits", {
      ...key(i),
      pubkey: hex(d.data.pubkey),
      withdrawal_credentials: hex(d.data.withdrawalCredentials),
      amount_gwei: int(d.data.amount),
      signature: hex(d.data.signature),
      proof: d.proof.map(hex),
    })
  );
  body.voluntaryExits.forEach((e, i) =>
    push("voluntary_exits", {
      ...key(i),
      epoch: int(e.message.epoch),
      validator_index: int(e.message.validatorIndex),
      signature: hex(e.signature),
    })
  );
  body.proposerSlashings.forEach((p, i) => {
    const [h1, h2] = [p.signedHeader1.message, p.signedHeader2.message];
    const hroot = (h) => hex(ssz.phase0.BeaconBlockHeader.hashTreeRoot(h));
    push("proposer_slashings", {
      ...key(i),
      proposer_index: int(h1.proposerIndex),
      header_1_slot: int(h1.slot),
      header_1_root: hroot(h1),
      header_2_slot: int(h2.slot),
      header_2_root: hroot(h2),
      header_1_parent_root: hex(h1.parentRoot),
      header_1_state_root: hex(h1.stateRoot),
      header_1_body_root: hex(h1.bodyRoot),
      header_1_signature: hex(p.signedHeader1.signature),
      header_2_parent_root: hex(h2.parentRoot),
      header_2_state_root: hex(h2.stateRoot),
      header_2_body_root: hex(h2.bodyRoot),
      header_2_signature: hex(p.signedHeader2.signature),
    });
  });
  const vote = (name, a) => ({
    [`${name}_slot`]: int(a.data.slot),
    [`${name}_source_epoch`]: int(a.data.source.epoch),
    [`${name}_target_epoch`]: int(a.data.target.epoch),
    [`${name}_attesting_indices`]: a.attestingIndices.map(int),
    [`${name}_committee_index`]: int(a.data.index),
    [`${name}_beacon_block_root`]: hex(a.data.beaconBlockRoot),
    [`${name}_source_root`]: hex(a.data.source.root),
    [`${name}_target_root`]: hex(a.data.target.root),
    [`${name}_signature`]: hex(a.signature),
  });
  body.attesterSlashings.forEach((s, i) => {
    const [a1, a2] = [s.attestation1, s.attestation2];
    const second = new Set(a2.attestingIndices.map((x) => BigInt(x)));
    const slashed = [...new Set(a1.attestingIndices.map((x) => BigInt(x)))]
      .filter((x) => second.has(x))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    push("attester_slashings", {
      ...key(i),
      slashed_indices: slashed.map(int),
      slashed_count: int(slashed.length),
      ...vote("attestation_1", a1),
      ...vote("attestation_2", a2),
    });
  });
  (body.blsToExecutionChanges ?? []).forEach((c, i) =>
    push("bls_to_execution_changes", {
      ...key(i),
      validator_index: int(c.message.validatorIndex),
      from_bls_pubkey: hex(c.message.fromBlsPubkey),
      to_execution_address: hex(c.message.toExecutionAddress),
      signature: hex(c.signature),
    })
  );
  if (body.syncAggregate) {
    const bits = body.syncAggregate.syncCommitteeBits;
    push("sync_aggregates", {
      slot,
      block_root: root,
      sync_committee_bits: hex(bits.uint8Array),
      participation_count: int(bits.getTrueBitIndexes().length),
      sync_committee_signature: hex(body.syncAggregate.syncCommitteeSignature),
    });
  }
  const payload = body.executionPayload;
  const merged = payload && !zero(payload.blockHash);
  // `raw_transactions`: the payload's `transactions` list as Lodestar decodes it, each hashed here (only for
  // blocks whose payloads carry real transactions: the sanity chains' are made up and eraflow reads none).
  if (merged && payloadTransactions) {
    payload.transactions.forEach((tx, i) =>
      push("raw_transactions", {
        block_number: int(payload.blockNumber),
        transaction_index: int(i),
        transaction_hash: hex(keccak_256(tx)),
        block_hash: hex(payload.blockHash),
        raw_transaction: hex(tx),
      }),
    );
  }
  // Gloas: the bid replaces the payload; its commitments are the block's blobs, its block hash their block.
  const bid = body.signedExecutionPayloadBid?.message;
  const commitments = bid ? bid.blobKzgCommitments : body.blobKzgCommitments ?? [];
  commitments.forEach((c, i) => {
    const h = createHash("sha256").update(c).digest();
    h[0] = 0x01;
    push("blob_commitments", {
      ...key(i),
      kzg_commitment: hex(c),
      versioned_hash: hex(h),
      execution_block_number: merged ? int(payload.blockNumber) : null,
      execution_block_hash: merged ? hex(payload.blockHash) : bid ? hex(bid.blockHash) : null,
    });
  });
  (body.payloadAttestations ?? []).forEach((a, i) =>
    push("payload_attestations", {
      ...key(i),
      attestation_slot: int(a.data.slot),
      beacon_block_root: hex(a.data.beaconBlockRoot),
      payload_present: a.data.payloadPresent,
      blob_data_available: a.data.blobDataAvailable,
      aggregation_bits: hex(a.aggregationBits.uint8Array),
      attesting_count: int(a.aggregationBits.getTrueBitIndexes().length),
      signature: hex(a.signature),
    })
  );
  if (bid) {
    let status = null;
    if (previous?.bid) {
      const p = hex(bid.parentBlockHash);
      status = p === hex(previous.bid.blockHash) ? "revealed" : p === hex(previous.bid.parentBlockHash) ? "withheld" : "broken";
    } else if (previous?.payload && !zero(previous.payload.blockHash)) {
      status = hex(bid.parentBlockHash) === hex(previous.payload.blockHash) ? "revealed" : "broken";
    }
    const SELF_BUILD = 2n ** 64n - 1n;
    const commitmentsType = ssz.gloas.ExecutionPayloadBid.fields.blobKzgCommitments;
    push("beacon_blocks (Gloas bid columns)", {
      slot,
      block_root: root,
      bid_builder_index: int(bid.builderIndex === Infinity ? SELF_BUILD : bid.builderIndex),
      bid_self_built: BigInt(bid.builderIndex === Infinity ? SELF_BUILD : bid.builderIndex) === SELF_BUILD,
      bid_value_gwei: int(bid.value),
      bid_execution_payment_gwei: int(bid.executionPayment),
      bid_block_hash: hex(bid.blockHash),
      bid_parent_block_hash: hex(bid.parentBlockHash),
      bid_gas_limit: int(bid.gasLimit),
      bid_blob_kzg_commitments_root: hex(commitmentsType.hashTreeRoot(bid.blobKzgCommitments)),
      bid_execution_requests_root: hex(bid.executionRequestsRoot),
      parent_payload_status: status,
      payload_attestation_count: int(body.payloadAttestations.length),
      blob_kzg_commitment_count: int(bid.blobKzgCommitments.length),
      fork,
    });
  }
  previous = { bid, payload };
  // Gloas: a block processes its parent payload's requests.
  const r = body.parentExecutionRequests ?? body.executionRequests;
  if (r) {
    r.deposits.forEach((d, i) =>
      push("deposit_requests", {
        ...key(i),
        pubkey: hex(d.pubkey),
        withdrawal_credentials: hex(d.withdrawalCredentials),
        amount_gwei: int(d.amount),
        signature: hex(d.signature),
        deposit_index: int(d.index),
      })
    );
    r.withdrawals.forEach((w, i) =>
      push("withdrawal_requests", {
        ...key(i),
        source_address: hex(w.sourceAddress),
        validator_pubkey: hex(w.validatorPubkey),
        amount_gwei: int(w.amount),
      })
    );
    r.consolidations.forEach((c, i) =>
      push("consolidation_requests", {
        ...key(i),
        source_address: hex(c.sourceAddress),
        source_pubkey: hex(c.sourcePubkey),
        target_pubkey: hex(c.targetPubkey),
      })
    );
    (r.builderDeposits ?? []).forEach((d, i) =>
      push("builder_deposit_requests", {
        ...key(i),
        pubkey: hex(d.pubkey),
        withdrawal_credentials: hex(d.withdrawalCredentials),
        amount_gwei: int(d.amount),
        signature: hex(d.signature),
      })
    );
    (r.builderExits ?? []).forEach((e, i) =>
      push("builder_exit_requests", {
        ...key(i),
        source_address: hex(e.sourceAddress),
        pubkey: hex(e.pubkey),
      })
    );
  }
}

function stateRows(out, fork, era, bytes) {
  const s = ssz[fork].BeaconState.deserializeToViewDU(bytes);
  const validators = s.validators.getAllReadonlyValues();
  const balances = s.balances.getAll();
  const altair = fork !== "phase0";
  const inactivity = altair ? s.inactivityScores.getAll() : null;
  const prev = altair ? s.previousEpochParticipation.getAll() : null;
  const cur = altair ? s.currentEpochParticipation.getAll() : null;
  const electra = s.pendingDeposits !== undefined;
  const count = (m, k) => int(m.get(k) ?? 0);
  const deposits = new Map();
  const partials = new Map();
  const consolidations = new Map();
  if (electra) {
    for (const d of s.pendingDeposits.getAllReadonlyValues()) {
      const k = hex(d.pubkey);
      deposits.set(k, (deposits.get(k) ?? 0) + 1);
    }
    for (const w of s.pendingPartialWithdrawals.getAllReadonlyValues()) {
      const k = int(w.validatorIndex);
      partials.set(k, (partials.get(k) ?? 0) + 1);
    }
    for (const c of s.pendingConsolidations.getAllReadonlyValues()) {
      const [a, b] = [int(c.sourceIndex), int(c.targetIndex)];
      consolidations.set(a, (consolidations.get(a) ?? 0) + 1);
      if (b !== a) consolidations.set(b, (consolidations.get(b) ?? 0) + 1);
    }
  }
  if (s.builders !== undefined) {
    s.builders.getAllReadonlyValues().forEach((b, i) =>
      (out.builders ??= []).push({
        slot: int(s.slot),
        era: int(era),
        builder_index: int(i),
        pubkey: hex(b.pubkey),
        version: int(b.version),
        execution_address: hex(b.executionAddress),
        balance: int(b.balance),
        deposit_epoch: int(b.depositEpoch),
        withdrawable_epoch: int(b.withdrawableEpoch),
      })
    );
  }
  const rows = (out.validators ??= []);
  validators.forEach((v, i) => {
    const index = int(i);
    rows.push({
      slot: int(s.slot),
      era: int(era),
      validator_index: index,
      pubkey: hex(v.pubkey),
      withdrawal_credentials: hex(v.withdrawalCredentials),
      effective_balance: int(v.effectiveBalance),
      balance: int(balances[i]),
      slashed: v.slashed,
      activation_eligibility_epoch: int(v.activationEligibilityEpoch),
      activation_epoch: int(v.activationEpoch),
      exit_epoch: int(v.exitEpoch),
      withdrawable_epoch: int(v.withdrawableEpoch),
      inactivity_score: altair ? int(inactivity[i]) : null,
      previous_epoch_participation: altair ? int(prev[i]) : null,
      current_epoch_participation: altair ? int(cur[i]) : null,
      pending_deposit_count: electra ? count(deposits, hex(v.pubkey)) : null,
      pending_partial_withdrawal_count: electra ? count(partials, index) : null,
      pending_consolidation_count: electra ? count(consolidations, index) : null,
    });
  });
}

const result = {};
for (const c of cases) {
  const out = (result[c.id] = {});
  previous = null;
  for (const b of c.blocks)
    blockRows(out, b.fork, b.signed, readFileSync(join(dir, b.file)), b.payload_transactions === true);
  for (const s of c.states) stateRows(out, s.fork, s.era, readFileSync(join(dir, s.file)));
}
writeFileSync(join(dir, "lodestar-rows.json"), JSON.stringify(result));
console.log(`${cases.length} cases decoded by @lodestar/types`);
