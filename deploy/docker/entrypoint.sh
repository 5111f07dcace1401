#!/bin/sh
# Container entrypoint: starts rpsum-server on the image's model with defaults that fit a
# container, then the caller's flags (later flags win). Sets what the host cannot know:
#   --threads  the cgroup CPU limit (LibTorch would otherwise start one thread per host core)
#   OPENBLAS_CORETYPE  see lib/rpsum/cpu-env
set -eu
here=$(dirname "$0")
. "$here/../lib/rpsum/cpu-env"
export OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-}"
threads=""
if [ -r /sys/fs/cgroup/cpu.max ]; then
  read -r quota period < /sys/fs/cgroup/cpu.max
  if [ "$quota" != max ]; then
    threads=$(( (quota + period - 1) / period ))
  fi
fi
set -- --model_dir="$here/../models/rpsum-ext" ${threads:+--threads=$threads} "$@"
exec "$here/rpsum-server" "$@"
