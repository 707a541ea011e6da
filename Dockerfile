# memory-mcp as a container image: the same static, pure-Go binary as the
# release archives (make dist) on a distroless base with no shell.
#
#   make docker                      # docker build --build-arg VERSION=... -t memory-mcp:VERSION .
#   docker run -i --rm -v memory-mcp-data:/data memory-mcp:VERSION
#
# The second command serves MCP over stdio (-i keeps stdin open), which is how
# an MCP client starts it: "command": "docker", "args": ["run", "-i", "--rm",
# "-v", "memory-mcp-data:/data", "-e", "MEMORY_MCP_AGENT_ID=me", "memory-mcp:VERSION"].
# The data directory is the volume /data and never part of the image, so a
# new image keeps the memory. Flags follow the image name ("memory-mcp:VERSION
# stdio --seniority senior"); settings can also be given with -e MEMORY_MCP_*.
#
# Default command: stdio. Once the team server exists ("memory-mcp serve",
# MCP over HTTP for many agents), the default becomes serve: CMD ["serve"],
# with its listen address on 0.0.0.0 inside the container, and an EXPOSE of
# its port; stdio stays available as "docker run -i ... memory-mcp stdio".
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
ENV MEMORY_MCP_DATA_DIR=/data
VOLUME /data
USER nonroot
ENTRYPOINT ["/usr/local/bin/memory-mcp"]
CMD ["stdio"]
