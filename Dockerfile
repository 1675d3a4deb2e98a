# pixsandbox container image: a static binary on distroless, run as a non-root user.
#
#   make image                       (docker or podman; VERSION/COMMIT/DATE from git)
#   docker run --rm -p 8080:8080 -e PIXSANDBOX_ADMIN_TOKEN=change-me -v pixsandbox:/data pixsandbox
#
# The server listens on 0.0.0.0:8080, so the control plane (/_sandbox) needs an
# admin token: set PIXSANDBOX_ADMIN_TOKEN (the server refuses to start without
# it), or PIXSANDBOX_CONTROL_PLANE=false. Every serve flag has a PIXSANDBOX_*
# variable (pixsandbox serve -h). State lives in the /data volume.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -buildid= -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/pixsandbox ./cmd/pixsandbox \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/pixsandbox /usr/local/bin/pixsandbox
# The volume's mount point belongs to the image's non-root user (65532).
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV PIXSANDBOX_ADDR=0.0.0.0:8080 \
    PIXSANDBOX_DATA_DIR=/data
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/pixsandbox"]
CMD ["serve"]
