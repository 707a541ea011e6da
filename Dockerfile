# memory-mcp as a container image: the same static, pure-Go binary as the
# release archives (make dist) on a distroless base with no shell.
#
#   make docker                      # docker build --build-arg VERSION=... -t memory-mcp:VERSION .
#   docker run --rm -v memory-mcp-data:/data memory-mcp:VERSION token add --agent-id me --seniority mid
#   docker run -d -p 127.0.0.1:8080:8080 -v memory-mcp-data:/data memory-mcp:VERSION
#
# The default command is the team server (memory-mcp serve, MCP over HTTP at
# /mcp and the review page at /ui), listening on every address inside the
# container and answering requests for localhost: publish its port on the
# host's loopback as above, or set MEMORY_MCP_ALLOWED_HOSTS to the name
# clients use behind a reverse proxy. Callers bring a bearer token made by
# the first command (printed once). stdio stays available for a client that
# starts the container itself: "command": "docker", "args": ["run", "-i",
# "--rm", "-v", "memory-mcp-data:/data", "-e", "MEMORY_MCP_AGENT_ID=me",
# "memory-mcp:VERSION", "stdio"]. The data directory is the volume /data and
# never part of the image, so a new image keeps the memory. Settings can
# also be given with -e MEMORY_MCP_*.
#
# The build runs on the builder's own platform and cross-compiles for the
# target's (docker buildx build --platform linux/amd64,linux/arm64 ...).

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS=linux TARGETARCH=amd64 VERSION=devel
# The release build's flags (scripts/dist/build.go).
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH GOAMD64=v1 GOARM64=v8.0 \
    go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=${VERSION}" \
    -o /out/memory-mcp ./cmd/memory-mcp \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/memory-mcp /usr/local/bin/memory-mcp
COPY --from=build /src/LICENSE /src/THIRD_PARTY_NOTICES.md /src/README.md /usr/share/doc/memory-mcp/
# Owned by the image's user (nonroot, 65532): a new named volume takes this
# ownership, so the server can create memory.db in it.
COPY --from=build --chown=65532:65532 /out/data /data
ENV MEMORY_MCP_DATA_DIR=/data MEMORY_MCP_ADDR=0.0.0.0:8080 MEMORY_MCP_ALLOWED_HOSTS=localhost,127.0.0.1,::1
VOLUME /data
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/usr/local/bin/memory-mcp"]
CMD ["serve"]
