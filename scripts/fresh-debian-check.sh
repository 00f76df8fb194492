#!/usr/bin/env bash
# Tries the README's set-up commands as a newcomer would, on a fresh Debian 12 (bookworm): builds a
# root with debootstrap, installs only git in it, clones this repository's committed HEAD (or
# --rev) and runs each command of README.md's "Set up" section verbatim inside the root, in order,
# in the same clone, as a newcomer pasting them one after the other would. No CUDA toolkit there.
#
#   sudo scripts/fresh-debian-check.sh [options] [DIR]
#
#   DIR              work folder (default /var/tmp/tilekit-fresh-debian): cache/ keeps the base
#                    root as a tarball (debootstrap + git) so reruns skip debootstrap; root/ is
#                    the throwaway root; logs/<time>-<commit>/ keeps every log of a run
#   --rev REV        commit or branch to check (default HEAD); uncommitted changes are never seen
#   --timeout SEC    stop each README command after SEC seconds (default 0: no limit)
#   --user           run the commands as a non-root user with sudo (installs sudo in the root)
#   --refresh        rebuild the cached base root (debootstrap again)
#   --keep           leave the root (and its build) in DIR/root for a look: chroot DIR/root
#   --mirror URL     Debian mirror for debootstrap (default http://deb.debian.org/debian)
#   --host-ca        trust the host's own CA certificates in the root too: copies the ones added
#                    in /usr/local/share/ca-certificates, adds them to the root's bundle and points
#                    pip at it (/etc/pip.conf). For a network that intercepts TLS, where pip in a
#                    fresh root fails with CERTIFICATE_VERIFY_FAILED; a newcomer's machine there
#                    needs the same from its administrator.
#
# Prints, per command, its exit code and wall time (and the time of each step of its && chain),
# then a summary with the tests that failed; the tail of a failed command's log. Exits 1 when any
# step failed, 2 on bad usage. Needs root (debootstrap, mount, chroot) and the network to Debian.
set -euo pipefail

suite=bookworm
mirror=http://deb.debian.org/debian
dir=/var/tmp/tilekit-fresh-debian
rev=HEAD
timeout_s=0
as_user=0
refresh=0
keep=0
host_ca=0

# The leading comment block, to its end: a fixed line range drifts whenever the text changes.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
while (($#)); do
  case "$1" in
    --rev) rev="${2:?--rev needs a value}"; shift 2 ;;
    --timeout) timeout_s="${2:?--timeout needs a value}"; shift 2 ;;
    --mirror) mirror="${2:?--mirror needs a value}"; shift 2 ;;
    --user) as_user=1; shift ;;
    --refresh) refresh=1; shift ;;
    --keep) keep=1; shift ;;
    --host-ca) host_ca=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fresh-check: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) dir="$1"; shift ;;
  esac
done
[[ "$timeout_s" =~ ^[0-9]+$ ]] || { echo "fresh-check: --timeout wants whole seconds" >&2; exit 2; }

say() { echo "fresh-check: $*"; }
die() { echo "fresh-check: error: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root for debootstrap, mount and chroot: sudo $0 $*"
repo="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
# A path with blanks would be escaped in /proc/self/mountinfo and dodge the mount guard below.
[[ "$dir" =~ ^/[A-Za-z0-9._/+-]+$ ]] || die "DIR must be an absolute path without blanks: $dir"
dir="$(realpath -m "$dir")"
[ "$dir" != / ] || die "DIR must not be /"
root="$dir/root"
arch="$(dpkg --print-architecture)"
cache="$dir/cache/$suite-$arch-git.tar.gz"

sha="$(git -C "$repo" rev-parse --verify --quiet "$rev^{commit}")" || die "no such commit: $rev"
short="${sha:0:10}"
# The branch name the clone will show: the ref's own name when REV is a branch, else "checked".
branch="$(git -C "$repo" rev-parse --symbolic-full-name "$rev" 2>/dev/null || true)"
branch="${branch#refs/heads/}"
[[ -n "$branch" && "$branch" != refs/* && "$branch" != HEAD ]] || branch=checked
[ "$rev" = HEAD ] && branch="$(git -C "$repo" symbolic-ref --quiet --short HEAD || echo checked)"
if [ "$rev" = HEAD ] && [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  say "warning: uncommitted changes in $repo are not part of the check (it clones $short)"
fi

# The commands: every ```sh block of README.md's "Set up" section at that commit, verbatim, one
# command per block, so this check cannot drift from what the README tells people to paste.
readme="$(git -C "$repo" show "$sha:README.md")" || die "no README.md at $short"
cmds=()
block=""
in_section=0 in_block=0
while IFS= read -r line; do
  if [[ "$line" =~ ^##\  ]]; then
    [[ "$line" =~ ^##\ Set\ up ]] && in_section=1 || in_section=0
    continue
  fi
  ((in_section)) || continue
  if ((in_block)); then
    if [[ "$line" =~ ^\`\`\` ]]; then in_block=0; cmds+=("$block"); block=""
    else block+="${block:+$'\n'}$line"; fi
  elif [[ "$line" =~ ^\`\`\`(sh|bash|shell)[[:space:]]*$ ]]; then
    in_block=1
  fi
done <<<"$readme"
((${#cmds[@]})) || die "found no \`\`\`sh block under '## Set up' in README.md at $short"

stamp="$(date -u +%Y%m%d-%H%M%S)"
logs="$dir/logs/$stamp-$short"
mkdir -p "$logs" "$dir/cache"
say "checking $short ($branch) of $repo on a fresh Debian $suite ($arch) in $root"
say "logs: $logs"

# ---- mounts, with a guard so nothing mounted is ever deleted through the root -------------------
mounted_under() {   # lists mount points at or under $1
  awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo
}
unmount_all() {     # $1: a root; /proc, /sys and /dev were mounted there by mount_all
  local r="$1" m
  for m in dev sys proc; do
    if [ -n "$(mounted_under "$r/$m")" ]; then
      umount -R "$r/$m" 2>/dev/null || umount -R -l "$r/$m" || true
    fi
  done
  if [ -n "$(mounted_under "$r")" ]; then
    echo "fresh-check: warning: still mounted under $r:" >&2
    mounted_under "$r" >&2
    return 1
  fi
}
mount_all() {
  local r="$1"
  mount -t proc proc "$r/proc"
  # rbind brings /dev/pts, /dev/shm and the like; rslave so unmounting them here never
  # propagates back to the host's own mounts.
  # (One command a line: set -e does not stop at the left side of an &&.)
  mount --rbind /sys "$r/sys"
  mount --make-rslave "$r/sys"
  mount --rbind /dev "$r/dev"
  mount --make-rslave "$r/dev"
}
remove_root() {     # deletes a root folder, but never while anything is mounted in it
  local r="$1"
  [ -e "$r" ] || return 0
  unmount_all "$r" || die "refusing to delete $r while something is mounted in it"
  rm -rf --one-file-system "$r"
}
active_root=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  ((rc == 130 || rc == 143)) && echo "fresh-check: interrupted; unmounting and removing the root" >&2
  if [ -n "$active_root" ]; then
    unmount_all "$active_root" || rc=1
    if [[ "$active_root" == "$dir/base.tmp" ]] || ((keep == 0)); then
      remove_root "$active_root" || rc=1
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Root's environment inside the root: what a login shell on a fresh Debian has, nothing of ours.
chroot_env=(env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
# A non-root newcomer's (--user): a login shell's PATH for a user.
user_env=(env -i HOME=/home/newcomer USER=newcomer LOGNAME=newcomer SHELL=/bin/bash TERM=dumb
          LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/games)
in_root() { chroot "$1" "${chroot_env[@]}" "${@:2}"; }

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
hms() { awk -v s="$1" 'BEGIN { printf "%dm%02ds", s / 60, s % 60 }'; }

results=()   # lines of the summary
failed=0
# phase NAME LOG COMMAND...: runs a preparation step with its output in LOG; on failure prints the
# log's tail and stops (nothing after it could run). The step runs in a subshell with set -e
# outside any `||`, where bash would silently switch set -e off inside functions; so a step
# changes no variable of this shell.
phase() {
  local name="$1" log="$2" t0 rc; shift 2
  t0="$(now)"
  set +e
  (set -e; "$@") >"$log" 2>&1
  rc=$?
  set -e
  local t="$(secs "$t0" "$(now)")"
  results+=("$(printf '%-44s exit %-3s %8s' "$name" "$rc" "$(hms "$t")")")
  if ((rc)); then
    echo "fresh-check: $name failed (exit $rc); last lines of $log:" >&2
    tail -n 40 "$log" >&2
    printf '%s\n' "${results[@]}"
    exit 1
  fi
  say "$name: ok ($(hms "$t"))"
}

# ---- the base root: debootstrap + git, cached as a tarball ---------------------------------------
build_base() {
  local b="$dir/base.tmp"
  remove_root "$b"
  mkdir -p "$b"
  debootstrap --arch="$arch" "$suite" "$b" "$mirror"
  cp -L /etc/resolv.conf "$b/etc/resolv.conf"
  mount_all "$b"
  in_root "$b" apt-get update
  in_root "$b" env DEBIAN_FRONTEND=noninteractive apt-get install -y git
  # Leave it as a fresh machine would be before anyone ran apt-get update: no package lists, no
  # downloaded .debs (setup.sh must cope with that).
  in_root "$b" apt-get clean
  rm -rf "$b"/var/lib/apt/lists/*
  unmount_all "$b"
  tar -C "$b" --numeric-owner -czf "$cache.tmp" .
  mv "$cache.tmp" "$cache"
  remove_root "$b"
}

if ! command -v debootstrap >/dev/null; then
  phase "install debootstrap on the host" "$logs/00-host-debootstrap.log" \
    bash -c 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap'
fi
if ((refresh)) || [ ! -s "$cache" ]; then
  active_root="$dir/base.tmp"   # for cleanup, should it be interrupted
  phase "debootstrap $suite + git (cached afterwards)" "$logs/01-base.log" build_base
  active_root=""
else
  say "base root: cached $cache ($(date -r "$cache" '+%F %T'); --refresh rebuilds it)"
  results+=("base root: cached, from $(date -r "$cache" '+%F %T')")
fi

# ---- a fresh root from the cache, the repository cloned in it ------------------------------------
prepare_root() {
  remove_root "$root"
  mkdir -p "$root"
  tar -C "$root" --numeric-owner -xzf "$cache"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"     # so apt resolves the mirror
  mount_all "$root"
  if ((host_ca)); then
    local added=(/usr/local/share/ca-certificates/*.crt)
    if [ ! -e "${added[0]}" ]; then
      echo "--host-ca: the host has no certificates in /usr/local/share/ca-certificates"
      exit 1
    fi
    cp "${added[@]}" "$root/usr/local/share/ca-certificates/"
    in_root "$root" update-ca-certificates
    printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$root/etc/pip.conf"
  fi
  # What the newcomer clones: a bare repository holding only the checked commit, on one branch.
  git init -q --bare "$root/srv/tilekit.git"
  git -C "$repo" push -q "$root/srv/tilekit.git" "$sha:refs/heads/$branch"
  git -C "$root/srv/tilekit.git" symbolic-ref HEAD "refs/heads/$branch"
  if ((as_user)); then
    # A newcomer with sudo rights: sudo is the one extra package such a machine has.
    in_root "$root" apt-get update
    in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y sudo
    rm -rf "$root"/var/lib/apt/lists/*
    in_root "$root" useradd --create-home --shell /bin/bash newcomer
    echo 'newcomer ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/newcomer"
    chmod 0440 "$root/etc/sudoers.d/newcomer"
    # Theirs to clone from: git refuses a repository owned by someone else ("dubious ownership").
    in_root "$root" chown -R newcomer:newcomer /srv/tilekit.git
    chroot --userspec=newcomer:newcomer "$root" "${user_env[@]}" \
      git clone -q /srv/tilekit.git /home/newcomer/tilekit
  else
    in_root "$root" git clone -q /srv/tilekit.git /root/tilekit
  fi
}
active_root="$root"
phase "fresh root, clone $short" "$logs/02-root.log" prepare_root
if ((as_user)); then
  run_in_root=(chroot --userspec=newcomer:newcomer "$root" "${user_env[@]}")
  home=/home/newcomer
else
  run_in_root=(chroot "$root" "${chroot_env[@]}")
  home=/root
fi

# ---- the README's commands --------------------------------------------------------------------------
# Each runs in bash from the clone, as pasted. bash's xtrace (to a side file, with a timestamp in
# PS4) times each step of the && chain without changing the command.
i=0
for cmd in "${cmds[@]}"; do
  i=$((i + 1))
  log="$logs/1$i-readme-command-$i.log"
  trace="$home/.fresh-check-trace-$i"
  echo
  say "README command $i/${#cmds[@]}: $cmd"
  script="cd ~/tilekit && exec 9>$trace && BASH_XTRACEFD=9 && PS4='+ \${EPOCHREALTIME} ' && set -x
$cmd"
  limit=()
  ((timeout_s > 0)) && limit=(timeout -k 30 "$timeout_s")
  t0="$(now)"
  rc=0
  "${limit[@]}" "${run_in_root[@]}" bash -c "$script" >"$log" 2>&1 </dev/null || rc=$?
  t1="$(now)"
  t="$(secs "$t0" "$t1")"
  note=""
  ((timeout_s > 0 && (rc == 124 || rc == 137))) && note=" (stopped by --timeout $timeout_s)"
  ((rc)) && failed=1
  results+=("$(printf '%-44s exit %-3s %8s%s' "README command $i" "$rc" "$(hms "$t")" "$note")")
  say "README command $i: exit $rc$note, $(hms "$t")"
  # The steps of the chain: top-level xtrace lines ("+ TIME cmd"), each lasting until the next.
  cp "$root$trace" "$logs/1$i-trace.txt" 2>/dev/null || true
  if [ -s "$logs/1$i-trace.txt" ]; then
    steps="$(awk -v end="$t1" '
      BEGIN { n = 0 }
      /^\+ [0-9]+\.[0-9]+ / { t[n] = $2; sub(/^\+ [0-9.]+ /, ""); c[n++] = $0 }
      END { for (k = 0; k < n; k++) { e = (k + 1 < n) ? t[k + 1] : end
                                       printf "    %6.0fs  %s\n", e - t[k], c[k] } }' \
      "$logs/1$i-trace.txt")"
    echo "$steps"
    results+=("$steps")
  fi
  # ctest names its failures in one block, and Python's unittest (the CLI test) each failing
  # case on a "... FAIL" line: carry both into the summary.
  if grep -q 'The following tests FAILED:' "$log"; then
    results+=("$(sed -n '/The following tests FAILED:/,/^Errors while running CTest/p' "$log" |
                 grep -v '^Errors while' | sed 's/^/    /')")
  fi
  # Each failing case with the last line of its traceback (the reason).
  cases="$(awk '/^(FAIL|ERROR): / { name = $2; next }
                name != "" && /^[A-Za-z.]*(Error|Exception)[A-Za-z]*: / {
                  print "      failing case: " name ": " substr($0, 1, 150); name = "" }' "$log")"
  [ -z "$cases" ] || results+=("$cases")
  passed="$(grep -E '[0-9]+% tests passed' "$log" | sed 's/^/    ctest: /' || true)"
  if [ -n "$passed" ]; then echo "$passed"; results+=("$passed"); fi
  if ((rc)); then
    echo "fresh-check: last lines of $log:"
    tail -n 40 "$log" | sed 's/^/  | /'
  fi
done

echo
say "summary for $short ($branch) on a fresh Debian $suite, $(nproc) cores; logs in $logs"
printf '%s\n' "${results[@]}" | tee "$logs/summary.txt"
if ((failed)); then
  say "FAILED"
  exit 1
fi
say "all README commands passed"
