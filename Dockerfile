# Build: a static binary (pure Go: the SQLite driver needs no cgo).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/datamonsters ./cmd/datamonsters

# Run: no shell, non-root, data in /data.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/datamonsters /usr/local/bin/datamonsters
ENV ADDR=:8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080 2525
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/datamonsters"]
CMD ["serve"]
