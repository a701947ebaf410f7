// Cross-check eraflow's progressive SSZ (EIP-7916 progressive lists and bitlists, EIP-7495 progressive
// containers) against @chainsafe/ssz (the implementation @lodestar/types 1.50.0 is built on), and Gloas'
// progressive containers against @lodestar/types' own schemas.
//
// Usage: node progressive.mjs DIR
// DIR/manifest.json lists {"file", "type", "root"} entries written by eraflow (tests/it/ssz_crosscheck.rs);
// "type" names a type of the table below. Each file is deserialized into a tree-backed view (validating it),
// re-serialized (must give the same bytes) and hashed; the root must equal eraflow's. Prints one line per
// object and a closing "N passed, M failed" line; exits 1 on any failure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ssz } from "@lodestar/types";
import {
  BitListType,
  BooleanType,
  ByteVectorType,
  ContainerType,
  ProgressiveBitListType,
  ProgressiveByteListType,
  ProgressiveContainerType,
  ProgressiveListBasicType,
  ProgressiveListCompositeType,
  UintBigintType,
} from "@chainsafe/ssz";

const u64 = new UintBigintType(8);
const bytes32 = new ByteVectorType(32);
const fixed = new ContainerType({ a: u64, b: bytes32, c: new BooleanType() });
const pbytes = new ProgressiveByteListType({ limit: 5000 });
const plistU64 = new ProgressiveListBasicType(u64, { limit: 1000 });
const types = {
  plist_u64: plistU64,
  plist_u8: pbytes,
  pbitlist: new ProgressiveBitListType({ limit: 5000 }),
  plist_bytes32: new ProgressiveListCompositeType(bytes32, { limit: 1000 }),
  plist_container: new ProgressiveListCompositeType(fixed, { limit: 200 }),
  plist_var: new ProgressiveListCompositeType(pbytes, { limit: 50 }),
  // Four fields at positions 0, 3, 5 and 8 of the progressive tree.
  pcontainer_sparse: new ProgressiveContainerType(
    { a: u64, b: plistU64, c: new BitListType(300), d: bytes32 },
    [true, false, false, true, false, true, false, false, true],
  ),
  "gloas.PayloadAttestation": ssz.gloas.PayloadAttestation,
  "gloas.ExecutionPayloadBid": ssz.gloas.ExecutionPayloadBid,
  "gloas.SignedExecutionPayloadBid": ssz.gloas.SignedExecutionPayloadBid,
  "gloas.Builder": ssz.gloas.Builder,
  "gloas.Attestation": ssz.gloas.Attestation,
  "gloas.AttesterSlashing": ssz.gloas.AttesterSlashing,
  "gloas.ExecutionRequests": ssz.gloas.ExecutionRequests,
  "gloas.BeaconBlockBody": ssz.gloas.BeaconBlockBody,
  "gloas.SignedBeaconBlock": ssz.gloas.SignedBeaconBlock,
  "gloas.BeaconState": ssz.gloas.BeaconState,
};

const dir = process.argv[2];
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
let passed = 0;
let failed = 0;
const hex = (b) => "0x" + Buffer.from(b).toString("hex");
for (const e of manifest) {
  const type = types[e.type];
  if (!type) {
    console.log(`FAIL ${e.file}: no type ${e.type}`);
    failed++;
    continue;
  }
  try {
    const bytes = readFileSync(join(dir, e.file));
    const view = type.deserializeToViewDU(bytes);
    // A byte list's "view" is its bytes (a value): the type serializes and hashes it.
    const isView = typeof view.serialize === "function";
    const again = isView ? view.serialize() : type.serialize(view);
    const same = Buffer.compare(Buffer.from(again), bytes) === 0;
    const root = hex(isView ? view.hashTreeRoot() : type.hashTreeRoot(view));
    if (root === e.root && same) {
      console.log(`ok   ${e.file} ${e.type} ${root}`);
      passed++;
    } else {
      console.log(`FAIL ${e.file} ${e.type}: chainsafe ${root}, eraflow ${e.root}, reserialized identical: ${same}`);
      failed++;
    }
  } catch (err) {
    console.log(`FAIL ${e.file} ${e.type}: ${err.message}`);
    failed++;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
