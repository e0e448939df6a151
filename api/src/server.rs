//! The accept loop: hyper's connection builder with a bound on everything a client can
//! hold open, instead of `axum::serve`, which exposes none of them.
//!
//! - `connections_max` connections at once (a semaphore permit per connection); the
//!   next client waits in the kernel's backlog until one closes. At start the bound is
//!   kept below the process's file-descriptor limit, whose soft value is raised to the
//!   hard one when allowed.
//! - `header_read_timeout_ms` to receive a request's headers, from the moment the
//!   connection waits for them: a client that sends them byte by byte (slowloris), or a
//!   keep-alive connection that stays silent, is closed once it passes.
//! - A request hyper cannot parse is answered in the error envelope ([`Enveloped`]).
//! - Graceful shutdown: on `stop` no new connection is accepted and those open finish
//!   their requests, at most `SHUTDOWN_WAIT_MS`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::rejections::Enveloped;
use crate::settings::ConnectionLimits;

/// How long shutdown waits for open connections to finish.
const SHUTDOWN_WAIT_MS: u64 = 30_000;
/// Descriptors kept for everything but client connections: database connections, the
/// artifact, log files.
const DESCRIPTORS_RESERVED: u64 = 128;
/// Pause after a failed accept (e.g. out of descriptors), so the loop does not spin.
const ACCEPT_RETRY_MS: u64 = 50;

/// Serves `router` on `listener` until `stop` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let connections_max = connections_within_descriptors(limits.connections_max);
    let permits = Arc::new(Semaphore::new(connections_max));
    // HTTP/1.1 only: HTTP/2 without TLS (h2c) is not offered, and the version sniffing
    // of an automatic builder would read a silent client's first bytes with no timeout.
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(limits.header_read_timeout_ms));
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(ACCEPT_RETRY_MS)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service =
            router
                .clone()
                .map_request(move |mut request: axum::http::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request
                });
        let connection = builder.serve_connection(
            TokioIo::new(Enveloped::new(stream)),
            TowerToHyperService::new(service),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    let wait = Duration::from_millis(SHUTDOWN_WAIT_MS);
    if tokio::time::timeout(wait, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open {wait:?} after shutdown began; closing them");
    }
    Ok(())
}

/// `wanted` connections, or fewer if the descriptor limit (its soft value raised to the
/// hard one where allowed) leaves less room.
fn connections_within_descriptors(wanted: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(%error, "could not read the file-descriptor limit");
            return wanted;
        }
    };
    let room = usize::try_from(limit.saturating_sub(DESCRIPTORS_RESERVED)).unwrap_or(usize::MAX);
    if room < wanted {
        tracing::warn!(
            descriptors = limit,
            wanted,
            connections_max = room.max(1),
            "the file-descriptor limit leaves room for fewer connections"
        );
    }
    wanted.min(room).max(1)
}
