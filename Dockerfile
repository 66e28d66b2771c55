# hark serve in a container. Its build steps are the README's:
# ./scripts/setup.sh (Debian packages and Go modules), then go install .
# (deploy/deploy_test.go checks that they stay so). The image runs one
# replica: the gateway on :8787, the operator's routes (/healthz, /readyz,
# /metrics) on :9464, the config in /etc/hark, the data in /var/lib/hark.
#
#   docker build -t hark .
#   docker run -v hark-etc:/etc/hark -v hark-data:/var/lib/hark \
#       -p 127.0.0.1:8787:8787 -p 127.0.0.1:9464:9464 hark
#
# For a team, give every replica HARK_DATABASE_URL (docs/deploy.md) and put
# a TLS proxy in front (deploy/nginx/hark.conf).
FROM golang:1.26-bookworm

WORKDIR /src
COPY . .
RUN ./scripts/setup.sh
RUN go install .

RUN useradd --system --home /var/lib/hark --shell /usr/sbin/nologin hark \
    && install -d -o hark -g hark -m 0700 /etc/hark /var/lib/hark \
    && cp "$(go env GOPATH)/bin/hark" /usr/local/bin/hark
USER hark
ENV HOME=/var/lib/hark
VOLUME ["/etc/hark", "/var/lib/hark"]
EXPOSE 8787 9464
# A first start writes /etc/hark/gateway.toml and prints its key once
# (docker logs). SIGTERM drains calls and streams (limits.shutdown_grace).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=3s CMD ["curl", "-fsS", "http://127.0.0.1:9464/healthz"]
ENTRYPOINT ["hark", "serve", "--config", "/etc/hark/gateway.toml", "--data-dir", "/var/lib/hark", "--listen", "0.0.0.0:8787", "--ops-listen", "0.0.0.0:9464"]
