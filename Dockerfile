# syntax=docker/dockerfile:1
# Build: a static binary (pure Go: the SQLite driver needs no cgo).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/datamonsters ./cmd/datamonsters \
    && mkdir -p /out/data

# Run: no shell, the distroless nonroot user (uid 65532), data in /data.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/datamonsters /usr/local/bin/datamonsters
# /data belongs to the image's user, and so does a new volume mounted on it
# (Docker copies the folder's owner into an empty named volume): the
# SQLite file, the generated JWT secret and the mail folder go there.
COPY --from=build --chown=65532:65532 /out/data /data
ENV ADDR=:8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080 2525
USER 65532:65532
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["/usr/local/bin/datamonsters", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/datamonsters"]
CMD ["serve"]
