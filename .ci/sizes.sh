# Sourced by the firmware checks: `check_sizes SNAPSHOT CURRENT` compares the section sizes
# CURRENT ("NAME BYTES" lines, from llvm-size -A) with the committed SNAPSHOT file: a section
# that grew, is missing or is new fails (returns 1); one that shrank is reported, so the
# snapshot can be lowered.
check_sizes() {
  local snapshot=$1 current=$2 grown=0 name bytes now
  while read -r name bytes; do
    [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
    now=$(awk -v n="$name" '$1 == n { print $2 }' <<<"$current")
    [ -n "$now" ] || { echo "missing section $name"; grown=1; continue; }
    if [ "$now" -gt "$bytes" ]; then echo "$name grew: $bytes -> $now bytes"; grown=1; fi
    if [ "$now" -lt "$bytes" ]; then echo "$name shrank: $bytes -> $now bytes (update $snapshot)"; fi
  done < "$snapshot"
  while read -r name bytes; do
    grep -q "^$name " "$snapshot" || { echo "new section $name ($bytes bytes): add it to $snapshot"; grown=1; }
  done <<<"$current"
  [ "$grown" = 0 ]
}
