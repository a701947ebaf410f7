#!/usr/bin/env bash
# Shows that two eraflow binaries (say, before and after a refactor) write byte-identical outputs: each exports
# the real archives (2 threads and 1 thread), builds prune manifests (binary and text lists) and synthesises
# era1 and era files, synthesises and exports archives of every kind, fork and ere profile, then every output
# file's sha256 is compared. Run reports and completion records under
# _eraflow/ hold timestamps and are left out.
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN [WORK_DIR]
#
# Data: ERAFLOW_TEST_DATA (default ../shared/data). Exit 0 when identical, 1 when not, 2 on a failed run.
set -uo pipefail
old=${1:?usage: compare-outputs.sh OLD_BIN NEW_BIN [WORK_DIR]}
new=${2:?usage: compare-outputs.sh OLD_BIN NEW_BIN [WORK_DIR]}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
data=${ERAFLOW_TEST_DATA:-$(dirname "$0")/../../shared/data}
[ -d "$data/era1" ] || { echo "no archives under $data (set ERAFLOW_TEST_DATA)" >&2; exit 2; }

# Synthetic archives of every kind, fork and profile, each exported (1 thread): ere of each profile synth makes
# (era 122 of synthnet crosses the merge and the later forks), era files of every fork, era1 on the gnosis-like
# AuRa preset.
synthetic() {
    local bin=$1 o=$2 s=$2/synth-all
    "$bin" synth --kind era1 --network synthnet-r1 --out "$s/era1" --files 1 --blocks 64 >>"$o.log" 2>&1 || return 2
    for profile in noproofs noproofs-noreceipts; do
        "$bin" synth --kind ere --profile $profile --era 122 --blocks 1024 --out "$s/ere-$profile" >>"$o.log" 2>&1 ||
            return 2
    done
    for fork in phase0 altair bellatrix capella deneb electra fulu; do
        "$bin" synth --kind era --fork $fork --blocks 16 --validators 64 --out "$s/era-$fork" >>"$o.log" 2>&1 ||
            return 2
    done
    # Each alone: files of one blocks in two profiles would be exported once, and a P-256 network's senders
    # need a process of their own.
    for d in "$s"/*; do
        "$bin" --threads 1 export --out "$o/export-synth/${d##*/}" "$d"/* >>"$o.log" 2>&1 || return 2
    done
    "$bin" --threads 1 export --datasets validators --out "$o/export-validators" "$s"/era-*/* >>"$o.log" 2>&1
}

outputs() {
    local bin=$1 o=$2
    rm -rf "$o" && mkdir -p "$o" && : >"$o.log"
    local era1=("$data"/era1/*.era1) era=("$data"/era/*.era)
    "$bin" --threads 2 export --out "$o/export" "${era1[@]}" "${era[@]}" >>"$o.log" 2>&1 &&
        "$bin" --threads 1 export --out "$o/export-1t" "${era1[@]}" "${era[@]}" >>"$o.log" 2>&1 &&
        "$bin" prune --out "$o/prune-mainnet" "$data"/era1/mainnet-*.era1 >>"$o.log" 2>&1 &&
        "$bin" prune --allow-gaps --out "$o/prune-sepolia" "$data"/era1/sepolia-*.era1 >>"$o.log" 2>&1 &&
        "$bin" prune --format text --out "$o/prune-text" "$data"/era1/mainnet-*.era1 >>"$o.log" 2>&1 &&
        "$bin" synth --out "$o/synth-era1" --files 2 --blocks 300 >>"$o.log" 2>&1 &&
        "$bin" synth --kind era --fork deneb --out "$o/synth-era" >>"$o.log" 2>&1 &&
        synthetic "$bin" "$o" ||
        { echo "$bin failed writing $o (see $o.log)" >&2; return 2; }
    (cd "$o" && find . -type f ! -path '*/_eraflow/*' -print0 | sort -z | xargs -0 sha256sum)
}

outputs "$old" "$work/old" >"$work/old.sums" || exit 2
outputs "$new" "$work/new" >"$work/new.sums" || exit 2
if diff "$work/old.sums" "$work/new.sums"; then
    echo "identical: $(wc -l <"$work/new.sums") files ($work)"
else
    echo "outputs differ (sha256 lists above; files under $work)" >&2
    exit 1
fi
