#!/usr/bin/env bash
# End to end for the container image: builds the Dockerfile with podman (rootless engines and
# registries are not needed: the base image is built locally by deploy/docker/make-base-image),
# exports the image's filesystem, runs its entrypoint under chroot on loopback as the image's
# user, and gets a real summary back through the image's own client. Reports the image size
# (target < 1.2 GB) and what dominates it. SIGTERM must drain and exit 0.
#   container_e2e.sh SOURCE_DIR        (exit 77: skipped: not root, which chroot needs)
# Env: RPSUM_IMAGE (tag, default localhost/rpsum:test), RPSUM_IMAGE_MAX_MB (default 1229).
set -euo pipefail
trap 'echo "FAIL: line $LINENO: \"$BASH_COMMAND\" exited $?" >&2' ERR
src=$(cd "$1" && pwd)
image=${RPSUM_IMAGE:-localhost/rpsum:test}
max_mb=${RPSUM_IMAGE_MAX_MB:-1229}
command -v podman >/dev/null || { echo "FAIL: podman is not installed (scripts/setup installs it)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "skip: chroot needs root"; exit 77; }
"$src/deploy/docker/make-base-image"

# Build. A warm ccache from the host, if any, makes the compile stage cheap (same compiler and
# headers: both are Debian 12).
cache=${CCACHE_DIR:-$HOME/.cache/ccache}
volume=()
[ -d "$cache" ] && volume=(-v "$cache:/ccache")
start=$(date +%s)
podman build --format docker --isolation=chroot --pull=never "${volume[@]}" -t "$image" "$src" >/tmp/rpsum-podman-build.$$.log 2>&1 || {
  tail -40 /tmp/rpsum-podman-build.$$.log; rm -f /tmp/rpsum-podman-build.$$.log; exit 1; }
rm -f /tmp/rpsum-podman-build.$$.log
echo "podman build: $(( $(date +%s) - start )) s"

size=$(podman image inspect --format '{{.Size}}' "$image")
size_mb=$(( size / 1000000 ))
user=$(podman image inspect --format '{{.Config.User}}' "$image")
health=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$image")
ports=$(podman image inspect --format '{{json .Config.ExposedPorts}}' "$image")
echo "image $image: ${size_mb} MB (limit ${max_mb} MB), user $user, ports $ports"
[ "$size_mb" -le "$max_mb" ] || { echo "FAIL: image is ${size_mb} MB > ${max_mb} MB"; exit 1; }
[ "$user" = "10001:10001" ] || { echo "FAIL: image user is '$user', not 10001:10001"; exit 1; }
[[ "$health" == *"rpsum"*"health"* ]] || { echo "FAIL: no HEALTHCHECK through the client: $health"; exit 1; }
for p in 50051 50052 9464; do
  [[ "$ports" == *"$p/tcp"* ]] || { echo "FAIL: port $p not exposed"; exit 1; }
done

root=$(mktemp -d)
chmod 0755 "$root"  # the image user must reach /
cid=""
pid=""
mounted=()
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
  [ -n "$cid" ] && podman rm -f "$cid" >/dev/null 2>&1 || true
  rm -rf "$root"
}
trap cleanup EXIT
cid=$(podman create "$image")
podman export "$cid" | tar -C "$root" -xf -
echo "largest parts of the image:"
du -sm "$root"/opt/rpsum/lib/deps "$root"/opt/rpsum/models "$root"/usr "$root"/opt/rpsum/bin 2>/dev/null |
  sort -rn | sed "s|$root||; s/^/  /"
# No `| head` under pipefail: a writer cut off early dies of SIGPIPE and fails the script.
mapfile -t biggest < <(ls -S "$root"/opt/rpsum/lib/deps)
for f in "${biggest[@]:0:5}"; do
  echo "  $(du -m "$root/opt/rpsum/lib/deps/$f" | cut -f1) MB  $f"
done
# A minimal /proc and /dev, as a container runtime would give.
for d in proc dev; do
  mkdir -p "$root/$d"
  if [ $d = proc ]; then mount -t proc proc "$root/proc"; else mount --bind /dev "$root/dev"; fi
  mounted+=("$root/$d")
done
cp "$src/docs/sample.md" "$root/tmp/sample.md"
chmod 0644 "$root/tmp/sample.md"

read -r p1 p2 p3 < <(/usr/bin/python3 "$src/tests/e2e/free_ports.py" 3)
api=127.0.0.1:$p1; hp=127.0.0.1:$p2; mp=127.0.0.1:$p3
# As the image's user, through the image's entrypoint (its defaults, then ours).
chroot --userspec=10001:10001 "$root" /opt/rpsum/bin/rpsum-entrypoint \
  --listen="$api" --health_listen="$hp" --metrics_listen="$mp" --threads=1 --drain_timeout_s=20 \
  >"$root/tmp/server.log" 2>&1 &
pid=$!
in_image() { chroot --userspec=10001:10001 "$root" "$@"; }
in_image /opt/rpsum/bin/rpsum health --server "$hp" --service liveness --wait 60 >/dev/null ||
  { echo "FAIL: no liveness"; cat "$root/tmp/server.log"; exit 1; }
in_image /opt/rpsum/bin/rpsum health --server "$hp" --wait 120 >/dev/null ||
  { echo "FAIL: never ready"; cat "$root/tmp/server.log"; exit 1; }
summary=$(in_image /opt/rpsum/bin/rpsum summarize --server "$api" --max_words 60 /tmp/sample.md)
echo "summary from the container: ${summary:0:600}"
words=$(echo "$summary" | wc -w)
[ "$words" -ge 10 ] || { echo "FAIL: summary has $words words"; exit 1; }
# Every summary sentence is text of the input (extractive).
first=${summary%%$'\n'*}
first=${first:0:40}
grep -qF -- "$first" "$src/docs/sample.md" || { echo "FAIL: summary is not from the document"; exit 1; }
metrics=$(curl -sf "http://$mp/metrics") || { echo "FAIL: no metrics endpoint in the container"; exit 1; }
grep -q '^rpsum_requests_total{.*code="OK"' <<<"$metrics" ||
  { echo "FAIL: no metrics from the container"; exit 1; }
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=""
[ $rc -eq 0 ] || { echo "FAIL: exit $rc after SIGTERM"; cat "$root/tmp/server.log"; exit 1; }
echo "PASS: container end to end (${size_mb} MB image)"
