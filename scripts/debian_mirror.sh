# The Debian mirror this machine's apt uses, for scripts that fetch Debian
# packages themselves (scripts/bazel7.sh's debootstrap). Sourced, not run:
#
#   source scripts/debian_mirror.sh
#   debian_mirror [APT_DIR]     prints the mirror's URL (APT_DIR: /etc/apt)
#
# It reads apt's sources in both formats: one-line `deb [options] URI SUITE
# COMPONENT...` entries (sources.list, sources.list.d/*.list) and deb822
# stanzas (sources.list.d/*.sources: `Types:`, `URIs:`, `Enabled:`). The
# Debian archive is the first binary (`deb`) source whose URI's path ends in
# `/debian`, as every Debian mirror names it (`/debian-security` and other
# archives are not it). With none, it says so and fails.

# The URIs of the `deb` entries of one-line source files, one a line.
_one_line_deb_uris() {
  awk '
    { sub(/#.*/, "") }
    $1 != "deb" { next }
    {
      i = 2
      # [options], possibly several words: skipped up to the closing bracket.
      if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if (i <= NF) print $i
    }
  ' "$@"
}

# The URIs of the enabled deb822 stanzas whose Types include `deb`, one a line.
_deb822_deb_uris() {
  awk '
    function flush() {
      if (is_deb && enabled) { n = split(uris, list, " "); for (j = 1; j <= n; j++) print list[j] }
      is_deb = 0; enabled = 1; uris = ""
    }
    BEGIN { enabled = 1 }
    FNR == 1 { flush() }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
      field = tolower($1)
      value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (field == "types:") { n = split(value, types, " "); for (j = 1; j <= n; j++) if (types[j] == "deb") is_deb = 1 }
      else if (field == "uris:") uris = value
      else if (field == "enabled:") enabled = (tolower(value) != "no")
    }
    END { flush() }
  ' "$@"
}

debian_mirror() {
  local apt="${1:-/etc/apt}" one_line=() deb822=() file uri
  for file in "$apt/sources.list" "$apt"/sources.list.d/*.list; do
    if [ -f "$file" ]; then one_line+=("$file"); fi
  done
  for file in "$apt"/sources.list.d/*.sources; do
    if [ -f "$file" ]; then deb822+=("$file"); fi
  done
  uri="$({
    if [ ${#one_line[@]} != 0 ]; then _one_line_deb_uris "${one_line[@]}"; fi
    if [ ${#deb822[@]} != 0 ]; then _deb822_deb_uris "${deb822[@]}"; fi
  } | grep -E '^[a-z+]+://[^ ]*/debian/?$' | head -n 1)" || true
  if [ -z "$uri" ]; then
    echo "no Debian archive in apt's sources ($apt/sources.list, $apt/sources.list.d/*.list or *.sources:" \
      "a 'deb' source whose URI ends in /debian); set ETSB_DEBIAN_MIRROR to a Debian mirror's URL" >&2
    return 1
  fi
  echo "${uri%/}"
}
