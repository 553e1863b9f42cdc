# a2abind as a static image: docker build -t a2abind . && docker run --rm a2abind probe URL
#
# Stage 1 builds a static binary (CGO_ENABLED=0, no libc); stage 2 is distroless/static:
# CA certificates, /etc/passwd with a nonroot user, and nothing else. The tests build
# the binary with this file's "go build" line (cmd/a2abind/packaging_test.go), so this
# stage and the tests cannot drift apart.
FROM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0-dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/a2abind/a2abind/internal/cli.Version=${VERSION}" -o /out/a2abind ./cmd/a2abind

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/a2abind /usr/local/bin/a2abind
USER nonroot:nonroot
# exporter and guard listen here when given --listen :9115 / :8443.
EXPOSE 9115 8443
ENTRYPOINT ["/usr/local/bin/a2abind"]
CMD ["--help"]
