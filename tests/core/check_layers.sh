#!/usr/bin/env bash
# Checks that core/ keeps to its layers (core/layers.txt, lowest first):
#  - every layer builds only on layers listed above it, and every folder of core/ is a layer;
#  - every #include of core/<layer>/... in core/ names the file's own layer or one it builds on (a cycle through
#    headers alone would still compile and link);
#  - given the layers' static libraries, every symbol one layer's library takes from another's comes from a
#    layer it builds on (a function declared by hand instead of included would otherwise link as well).
# Prints one line per problem and exits 1 when there is any.
#   check_layers.sh <source root> [<layer>=<path of the layer's static library> ...]
# NM names the nm to use (CMake passes its CMAKE_NM); without one that works, the symbol check fails, never skips.
set -uo pipefail
export LC_ALL=C # sort and join must agree on the order of symbol names

root=${1:?usage: check_layers.sh <source root> [<layer>=<library> ...]}
shift
failed=0
problem() {
    echo "$*"
    failed=1
}

# below[layer]: every layer it builds on, directly or through another layer (space-separated, sorted).
declare -A below
while IFS= read -r line; do
    [[ $line =~ ^([a-z0-9_]+):(.*)$ ]] || continue
    layer=${BASH_REMATCH[1]}
    if [[ -n ${below[$layer]+set} ]]; then
        problem "core/layers.txt: $layer is listed twice"
        continue
    fi
    reach=""
    for dep in ${BASH_REMATCH[2]}; do
        if [[ -z ${below[$dep]+set} ]]; then
            problem "core/layers.txt: $layer builds on $dep, which is not listed above it"
            continue
        fi
        reach+=" $dep ${below[$dep]}"
    done
    below[$layer]=$(tr ' ' '\n' <<<"$reach" | sed '/^$/d' | sort -u | tr '\n' ' ')
    below[$layer]=${below[$layer]% }
done <"$root/core/layers.txt"

for dir in "$root"/core/*/; do
    name=$(basename "$dir")
    [[ -n ${below[$name]+set} ]] || problem "core/$name/ is not a layer: add it to core/layers.txt"
done
for file in "$root"/core/*; do
    [[ -f $file && $(basename "$file") != layers.txt && $(basename "$file") != CMakeLists.txt ]] &&
        problem "core/$(basename "$file") is in no layer: move it into a layer's folder"
done
for layer in "${!below[@]}"; do
    [[ -d $root/core/$layer ]] || problem "core/layers.txt: $layer has no folder core/$layer/"
done

builds_on() { [[ " ${below[$1]:-} " == *" $2 "* ]]; }

while IFS=: read -r file lineno text; do
    rel=${file#"$root"/}
    own=${rel#core/}
    own=${own%%/*}
    if [[ $text =~ [\"\<]core/([^/\"\>]+)/ ]]; then
        target=${BASH_REMATCH[1]}
        [[ $target == "$own" ]] || builds_on "$own" "$target" ||
            problem "$rel:$lineno: $own may not include core/$target/ ($own builds on: ${below[$own]:-nothing})"
    fi
    if [[ $text =~ \"[^\"]*\.\./ ]]; then
        problem "$rel:$lineno: include core's headers by their path from the root (core/<layer>/...), not by ../"
    fi
done < <(grep -rnE --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.cuh' \
    '^[[:space:]]*#[[:space:]]*include' "$root/core" | sort)

nm=${NM:-nm}
if (($# > 0)) && ! command -v "$nm" >/dev/null; then
    problem "no nm ('$nm'): the symbol check cannot run; install binutils or set NM"
elif (($# > 0)); then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    for arg in "$@"; do
        layer=${arg%%=*}
        lib=${arg#*=}
        [[ -n ${below[$layer]+set} ]] || problem "$lib: $layer is not a layer of core/layers.txt"
        # Strong definitions only: an inline or template function is emitted (weak) by every layer that uses it.
        if ! "$nm" -g --defined-only "$lib" >"$work/nm-defined" 2>"$work/nm-error" ||
            ! "$nm" -g --undefined-only "$lib" >"$work/nm-used" 2>>"$work/nm-error"; then
            problem "$lib: $nm failed: $(head -n 1 "$work/nm-error")"
            continue
        fi
        # A layer with sources but no symbol at all means nm could not read it (an LTO archive, say).
        grep -q ' [TDBRGW] ' "$work/nm-defined" || problem "$lib: $nm lists no symbol defined in it"
        awk -v l="$layer" 'NF == 3 && $2 ~ /^[TDBRG]$/ {print $3, l}' "$work/nm-defined" >>"$work/defined"
        awk -v l="$layer" '$1 == "U" {print $2, l}' "$work/nm-used" >>"$work/used"
    done
    sort -u -o "$work/defined" "$work/defined"
    sort -u -o "$work/used" "$work/used"
    # One line per (layer, layer it must not use) with the first such symbol.
    while read -r symbol user definer; do
        [[ $user == "$definer" ]] || builds_on "$user" "$definer" ||
            problem "coh_$user takes $(c++filt "$symbol") from coh_$definer, which $user does not build on"
    done < <(join "$work/used" "$work/defined" | awk '!seen[$2 " " $3]++')
fi

exit $failed
