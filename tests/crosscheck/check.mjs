// Cross-check eraflow's hash_tree_root against Lodestar's SSZ types (@lodestar/types, @chainsafe/ssz), an
// independent implementation of both the container schemas and the merkleization.
//
// Usage: node check.mjs DIR
// DIR/manifest.json lists {"file", "kind": "BeaconState"|"SignedBeaconBlock"|"BeaconBlock", "fork", "root"}
// entries written by eraflow (tests/it/ssz_crosscheck.rs). Each file is deserialized by Lodestar into a tree-backed view (which
// also validates it), re-serialized (must give the same bytes) and hashed; the root must equal eraflow's.
// Prints one line per object and a closing "N passed, M failed" line; exits 1 on any failure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ssz } from "@lodestar/types";

const dir = process.argv[2];
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
let passed = 0;
let failed = 0;
const hex = (b) => "0x" + Buffer.from(b).toString("hex");
for (const e of manifest) {
  const type = ssz[e.fork]?.[e.kind];
  if (!type) {
    console.log(`FAIL ${e.file}: Lodestar has no ${e.fork}.${e.kind}`);
    failed++;
    continue;
  }
  try {
    const bytes = readFileSync(join(dir, e.file));
    // Tree-backed view: built from the bytes' chunks, so uint64 values above 2^53 (which Lodestar's value
    // API turns into JS numbers) survive; it validates offsets and lengths like the value API.
    const view = type.deserializeToViewDU(bytes);
    const again = view.serialize();
    const same = Buffer.compare(Buffer.from(again), bytes) === 0;
    const root = hex(view.hashTreeRoot());
    if (root === e.root && same) {
      console.log(`ok   ${e.file} ${e.fork}.${e.kind} ${root}`);
      passed++;
    } else {
      console.log(`FAIL ${e.file} ${e.fork}.${e.kind}: lodestar ${root}, eraflow ${e.root}, reserialized identical: ${same}`);
      failed++;
    }
  } catch (err) {
    console.log(`FAIL ${e.file} ${e.fork}.${e.kind}: ${err.message}`);
    failed++;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
