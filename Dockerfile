# SPDX-License-Identifier: Apache-2.0
# rtype-server in a container (README "Running as a service"):
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t rtype-server .
#   docker run -d --name rtype -p 4242:4242/tcp -p 4242:4242/udp rtype-server
# Publishing other host ports: the lobby's is whatever the players dial, the game's must be
# advertised, e.g. -p 5000:4242/tcp -p 5001:4242/udp -e RTYPE_PUBLIC_UDP=:5001.
# `docker stop` (SIGTERM) ends every game with GAME_END and exits 0.
# The same image runs a lobby or a game host (-role lobby|host) and the Agones Fleet of
# deploy/k8s (docs/DEPLOY.md).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/rtype/rtype/buildinfo.Version=${VERSION}" \
      -o /out/ ./cmd/rtype-server ./cmd/rtype-bot

# Static binaries only: no shell, no package manager, a non-root user (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
COPY LICENSE docs/THIRD_PARTY.md /usr/share/doc/rtype/
USER nonroot:nonroot
EXPOSE 4242/tcp 4242/udp
ENTRYPOINT ["/usr/local/bin/rtype-server"]
CMD ["-log-format", "json"]
