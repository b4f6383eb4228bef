# onair on Debian 12: FFmpeg 5.1's runtime libraries, libsrt and jemalloc, the release binary (Swift's
# runtime linked in), a non-root user, and the project's assets under /srv/onair. The pipelines
# and presets come at run time (a Kubernetes ConfigMap: onair export kubernetes NAME).
#
# Build from the project's top folder (a Docker or BuildKit-compatible builder):
#   docker build -t onair:0.1.0 .
# Check it without a container engine: tests run hadolint on this file and check that every
# library the binary links is installed by the runtime stage (Tests/OnairExportTests), and
# scripts/check-image runs the runtime stage in a debootstrapped Debian 12 root.

# The build stage must be Debian 12 too, so the FFmpeg headers it builds against are the 5.1
# the runtime stage installs.
ARG SWIFT_VERSION=6.3
FROM swift:${SWIFT_VERSION}-bookworm AS build
# Version pins would break with every Debian security update; the release (bookworm) pins them.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends pkg-config \
      libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev \
      libswscale-dev libswresample-dev libavdevice-dev libjemalloc-dev libsrt-gnutls-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY Package.swift ./
COPY Sources ./Sources
RUN swift build -c release --product onair --static-swift-stdlib \
 && install -D "$(swift build -c release --show-bin-path)/onair" /out/onair

FROM debian:12-slim
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libavformat59 libavcodec59 libavfilter8 libavutil57 \
      libswscale6 libswresample4 libavdevice59 libjemalloc2 libsrt1.5-gnutls \
      fontconfig fonts-dejavu-core ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 onair \
 && useradd --system --uid 10001 --gid onair --home-dir /srv/onair --shell /usr/sbin/nologin onair
COPY --from=build /out/onair /usr/local/bin/onair
WORKDIR /srv/onair
# The project's assets (images, videos, the slate) are part of the image: they change with
# a release. Pipelines/ and Presets/ are mounted over this folder at run time.
COPY assets ./assets
# HOME for font caches; the root file system is read-only in the exported manifests.
ENV HOME=/tmp
USER 10001:10001
# The HTTP API (onair run NAME --http 0.0.0.0:8750).
EXPOSE 8750
ENTRYPOINT ["/usr/local/bin/onair"]
CMD ["--help"]
