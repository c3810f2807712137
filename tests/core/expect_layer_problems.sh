#!/usr/bin/env bash
# Runs check_layers.sh and passes only when it fails (exit 1) and reports every expected line.
#   expect_layer_problems.sh <check_layers.sh> <expected lines file> <check_layers.sh arguments...>
set -uo pipefail
check=$1 expected=$2
shift 2
out=$("$check" "$@")
rc=$?
echo "$out"
if ((rc != 1)); then
    echo "expected exit 1 from check_layers.sh, got $rc"
    exit 1
fi
while IFS= read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    grep -qxF -- "$line" <<<"$out" || { echo "missing: $line"; exit 1; }
done <"$expected"
