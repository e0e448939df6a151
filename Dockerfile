# Production image of the `manabi` binary (the dataset artifact is built into it).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin manabi

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/manabi /usr/local/bin/manabi
WORKDIR /srv/manabi
ENV MANABI_BIND=0.0.0.0:8080 \
    MANABI_DATA_DIR=/srv/manabi/var
EXPOSE 8080
ENTRYPOINT ["manabi"]
CMD ["serve"]
