# syntax=docker/dockerfile:1
# rpsum: the gRPC summarization server with the shipped model, in two stages.
#   builder  Debian 12 with the build packages from scripts/packages.txt (tag "build"); compiles
#            the release targets and collects the shared libraries they load (ldd closure).
#   runtime  debian:bookworm-slim + those libraries + rpsum-server, the rpsum client (health
#            checks) and models/rpsum-ext. Runs as uid 10001; writes nothing.
#
#   docker build -t rpsum .    (or: podman build --format docker --isolation=chroot -t rpsum .;
#                               --format docker keeps the HEALTHCHECK, which OCI images drop)
#   docker run -p 50051:50051 -p 50052:50052 -p 9464:9464 rpsum
#
# Why the ldd closure and not `apt-get install libtorch1.13`: Debian's libtorch package depends
# on OpenCV, FFmpeg, GDAL and Qt; the packages would make the image about 2 GB. The closure
# copies exactly the files the dynamic loader opens (still ~540 MB: libtorch_cpu alone is 120 MB,
# and it links OpenCV/FFmpeg). Rebuild the image to take Debian security updates.
#
# GPU images: LIBTORCH_URL names a CUDA LibTorch zip (pytorch.org, cxx11 ABI) and RUNTIME_BASE a
# CUDA runtime image, e.g.
#   --build-arg LIBTORCH_URL=https://download.pytorch.org/libtorch/cu118/libtorch-cxx11-abi-shared-with-deps-1.13.1%2Bcu118.zip
#   --build-arg RUNTIME_BASE=nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04
# Not built or tested by us: our build machines reach neither download.pytorch.org nor a
# container registry (README, "Run in production").
ARG RUNTIME_BASE=debian:bookworm-slim

FROM debian:bookworm-slim AS builder
ARG LIBTORCH_URL=""
ENV DEBIAN_FRONTEND=noninteractive
COPY scripts/packages.txt /tmp/packages.txt
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      $(awk '!/^#/ && $2 == "build" {print $1}' /tmp/packages.txt) \
      $([ -n "$LIBTORCH_URL" ] && echo curl unzip ca-certificates) >/dev/null \
 && rm -rf /var/lib/apt/lists/*
RUN if [ -n "$LIBTORCH_URL" ]; then \
      curl -fsSL "$LIBTORCH_URL" -o /tmp/libtorch.zip && unzip -q /tmp/libtorch.zip -d /opt \
      && rm /tmp/libtorch.zip; \
    fi
WORKDIR /src
COPY . /src
# CCACHE_DIR: a build may mount a warm cache there (podman build -v ...:/ccache); without one
# the cache is simply empty.
ENV CCACHE_DIR=/ccache CCACHE_BASEDIR=/src
RUN prefix=""; [ -d /opt/libtorch ] && prefix="-DCMAKE_PREFIX_PATH=/opt/libtorch"; \
    cmake --preset release -DRPSUM_BUILD_TESTS=OFF -DRPSUM_BUILD_BENCH=OFF $prefix >/dev/null \
 && cmake --build --preset release --target rpsum-server rpsum rpsum_spm \
 && cmake --install build/release --prefix /opt/rpsum >/dev/null \
 && deploy/docker/collect-libs /opt/rpsum/lib/deps \
      /opt/rpsum/bin/rpsum-server /opt/rpsum/bin/rpsum /opt/rpsum/lib/rpsum/librpsum_spm.so

FROM ${RUNTIME_BASE} AS runtime
COPY --from=builder /opt/rpsum /opt/rpsum
RUN echo /opt/rpsum/lib/deps > /etc/ld.so.conf.d/rpsum.conf && ldconfig \
 && useradd --system --uid 10001 --no-create-home --home-dir /nonexistent rpsum
COPY --chown=0:0 models/rpsum-ext /opt/rpsum/models/rpsum-ext
USER 10001:10001
ENV PATH=/opt/rpsum/bin:$PATH
# API (token/TLS per flags), health (plaintext, probes only), Prometheus metrics.
EXPOSE 50051 50052 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["/opt/rpsum/bin/rpsum", "health", "--server=127.0.0.1:50052"]
ENTRYPOINT ["/opt/rpsum/bin/rpsum-entrypoint"]
CMD ["--listen=0.0.0.0:50051", "--health_listen=0.0.0.0:50052", "--metrics_listen=0.0.0.0:9464"]
