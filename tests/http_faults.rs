//! Faults against the real binary: clients that hold connections open without sending a
//! request, slowloris headers, a flood of silent sockets, bodies on GETs, unusable
//! request ids. Each must cost the server a bounded time and never take it down.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use manabi_tests::{TestApp, spawn_binary_with};

/// Hex characters in a key's secret part.
const SECRET_HEX_CHARS: usize = 64;

fn socket_address(app: &TestApp) -> String {
    app.address.trim_start_matches("http://").to_owned()
}

/// Sends raw `request` bytes on a new connection and reads the answer until the server
/// closes it (the server may answer before the whole request is sent).
fn exchange(address: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// Reads until the server closes the connection; how long that took.
fn time_until_closed(mut stream: TcpStream, limit: Duration) -> Duration {
    stream.set_read_timeout(Some(limit)).expect("read timeout");
    let started = Instant::now();
    let mut buffer = [0_u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return started.elapsed(),
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                return started.elapsed();
            }
            Err(error) => panic!("the server kept the connection open: {error}"),
        }
    }
}

/// Headers sent byte by byte, and a keep-alive connection that falls silent, are both
/// closed once the header-read timeout passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_and_silent_connections_are_closed() {
    let app = spawn_binary_with(&[("MANABI_HEADER_READ_TIMEOUT_MS", "500")]).await;
    let address = socket_address(&app);
    let limit = Duration::from_secs(5);

    let mut slow = TcpStream::connect(&address).expect("connect");
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .expect("partial headers");
    let closed_after = tokio::task::spawn_blocking(move || time_until_closed(slow, limit))
        .await
        .expect("reader");
    assert!(closed_after < Duration::from_secs(3), "{closed_after:?}");

    let mut idle = TcpStream::connect(&address).expect("connect");
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("a request");
    let closed_after = tokio::task::spawn_blocking(move || time_until_closed(idle, limit))
        .await
        .expect("reader");
    assert!(closed_after < Duration::from_secs(3), "{closed_after:?}");
}

/// Silent sockets up to the connection limit do not make the server unreachable for
/// longer than the header-read timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_silent_sockets_is_shed() {
    let app = spawn_binary_with(&[
        ("MANABI_HEADER_READ_TIMEOUT_MS", "500"),
        ("MANABI_CONNECTIONS_MAX", "8"),
    ])
    .await;
    let address = socket_address(&app);
    // Eight are accepted and held until their headers time out; the rest wait in the
    // kernel's backlog, in front of the real request.
    let silent: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(&address).expect("connect"))
        .collect();
    // A client of its own: the test app's keeps a connection from the readiness wait.
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let started = Instant::now();
    let request = client.get(format!("{}/healthz", app.address)).send();
    let response = tokio::time::timeout(Duration::from_secs(10), request)
        .await
        .expect("answered while silent sockets are open")
        .expect("sent");
    assert_eq!(response.status(), 200);
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    drop(silent);
}

/// A body on a GET, chunked or not, is refused in the envelope.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_with_a_body_is_refused() {
    let app = spawn_binary_with(&[]).await;
    let address = socket_address(&app);
    let answers = tokio::task::spawn_blocking(move || {
        let mut chunk = format!("{:x}\r\n", 1 << 20).into_bytes();
        chunk.extend(vec![b'x'; 1 << 20]);
        chunk.extend(b"\r\n");
        let requests: [Vec<u8>; 2] = [
            [
                b"GET /api/v1/worlds HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
                    .to_vec(),
                chunk,
                b"0\r\n\r\n".to_vec(),
            ]
            .concat(),
            b"GET /api/v1/worlds HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello".to_vec(),
        ];
        requests.map(|request| exchange(&address, &request))
    })
    .await
    .expect("requests");
    for answer in answers {
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert!(answer.contains("MALFORMED_REQUEST"), "{answer}");
    }
}

/// Requests hyper cannot parse — a broken request line, a header without a colon, a
/// control character in a value, more headers than it reads — are answered in the error
/// envelope with a request id, not with an empty hyper answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unparseable_requests_are_answered_in_the_envelope() {
    let app = spawn_binary_with(&[]).await;
    let address = socket_address(&app);
    let many_headers: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (
            b"NOT HTTP AT ALL\r\n\r\n".to_vec(),
            "400",
            "MALFORMED_REQUEST",
        ),
        (
            b"GET /api/v1 HTTP/1.1\r\nHost x\r\n\r\n".to_vec(),
            "400",
            "MALFORMED_REQUEST",
        ),
        (
            b"GET /api/v1 HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n".to_vec(),
            "400",
            "MALFORMED_REQUEST",
        ),
        (
            format!("GET /api/v1 HTTP/1.1\r\nHost: x\r\n{many_headers}\r\n").into_bytes(),
            "431",
            "HEADERS_TOO_LARGE",
        ),
    ];
    let answers = tokio::task::spawn_blocking(move || {
        cases
            .into_iter()
            .map(|(request, status, code)| (exchange(&address, &request), status, code))
            .collect::<Vec<_>>()
    })
    .await
    .expect("requests");
    for (answer, status, code) in answers {
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
        assert!(head.contains("x-request-id: "), "{head}");
        assert!(head.contains("content-type: application/json"), "{head}");
        let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
        assert_eq!(body["ok"], false, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
    }
}

/// A caller's request id is kept only when short and plain; otherwise the server makes
/// its own, and the answer says which.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_request_ids_are_replaced() {
    let app = spawn_binary_with(&[]).await;
    let sent = |id: &[u8]| {
        let value = reqwest::header::HeaderValue::from_bytes(id).expect("a header value");
        app.client
            .get(format!("{}/api/v1", app.address))
            .header("x-request-id", value)
            .send()
    };
    let kept = sent(b"order-42.retry:1").await.expect("sent");
    assert_eq!(kept.headers()["x-request-id"], "order-42.retry:1");
    let long = "x".repeat(7_000);
    for unusable in [long.as_bytes(), b"has space", "ü".as_bytes()] {
        let response = sent(unusable).await.expect("sent");
        let id = response.headers()["x-request-id"].as_bytes();
        assert_ne!(id, unusable);
        assert_eq!(id.len(), 36, "a UUID: {id:?}");
    }
}

/// How a test takes PostgreSQL away and brings it back.
enum Outage {
    /// A network partition: a forwarder between server and database stops forwarding,
    /// so packets go unanswered.
    Partition(manabi_tests::proxy::TcpProxy),
    /// A throwaway cluster stopped with `-m immediate` and started again.
    Stopped(manabi_tests::pg_cluster::PgCluster),
}

impl Outage {
    fn begin(&self) {
        match self {
            Outage::Partition(proxy) => proxy.stop(),
            Outage::Stopped(cluster) => cluster.stop(),
        }
    }

    async fn end(&self) {
        match self {
            Outage::Partition(proxy) => proxy.resume().await,
            Outage::Stopped(cluster) => cluster.resume(),
        }
    }
}

/// While PostgreSQL cannot be reached — partitioned away, or stopped — keyed calls are
/// refused with 503 and `Retry-After` in bounded time (the first within the pool's 5 s
/// connection wait, the next at once) and `/readyz` says so within its 1 s probe;
/// nothing is charged. Once the database is back, calls succeed again without a
/// restart, and the ledger holds exactly the answered calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_partitioned_away_fails_fast_and_recovers_without_a_restart() {
    use manabi_tests::ledger::{Backend, fresh_db};
    use manabi_tests::proxy::TcpProxy;

    let db = fresh_db(Backend::Postgres).await;
    let (head, tail) = db.url.split_once('@').expect("user@host");
    let (host, path) = tail.split_once('/').expect("host/db");
    let proxy = TcpProxy::start(host).await;
    let proxied = format!("{head}@{}/{path}", proxy.address);
    fails_fast_and_recovers(&db.url, &proxied, Outage::Partition(proxy)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_fails_fast_and_recovers_without_a_restart() {
    let cluster = manabi_tests::pg_cluster::PgCluster::start();
    let url = cluster.url.clone();
    fails_fast_and_recovers(&url, &url, Outage::Stopped(cluster)).await;
}

/// The server uses `served_url`; the test funds and verifies through `url`.
async fn fails_fast_and_recovers(url: &str, served_url: &str, outage: Outage) {
    let app = spawn_binary_with(&[
        ("MANABI_DATABASE_URL", served_url),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
        ("MANABI_RUN_PROJECTOR", "false"),
    ])
    .await;
    let (_, _, key) = manabi_tests::funded_key(url, 100);
    let keyed = |path: &'static str| {
        app.client
            .get(format!("{}{path}", app.address))
            .header("x-api-key", &key)
            .send()
    };
    let read = "/api/v1/learnables/vocab-sake";
    let mut answered = 0;
    assert_eq!(keyed(read).await.expect("sent").status(), 200);
    answered += 1;
    // A well-formed key naming an account that does not exist: looked up once, then
    // refused from memory, even while the database is away.
    let made_up = format!(
        "svc_ak_{}_{}_{}",
        uuid::Uuid::now_v7().simple(),
        uuid::Uuid::now_v7().simple(),
        "ab".repeat(SECRET_HEX_CHARS / 2)
    );
    let with_made_up_key = || {
        app.client
            .get(format!("{}{read}", app.address))
            .header("x-api-key", &made_up)
            .send()
    };
    assert_eq!(with_made_up_key().await.expect("sent").status(), 401);

    outage.begin();
    let started = Instant::now();
    assert_eq!(with_made_up_key().await.expect("sent").status(), 401);
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    for attempt in 0..3 {
        let started = Instant::now();
        let response = keyed(read).await.expect("sent");
        let waited = started.elapsed();
        assert_eq!(response.status(), 503, "attempt {attempt}");
        assert!(response.headers().contains_key("retry-after"));
        let bound = if attempt == 0 { 7_000 } else { 1_500 };
        assert!(
            waited < Duration::from_millis(bound),
            "attempt {attempt}: {waited:?}"
        );
        let body: serde_json::Value = response.json().await.expect("JSON");
        assert_eq!(body["error"]["code"], "SERVICE_UNAVAILABLE", "{body}");
    }
    let started = Instant::now();
    assert_eq!(app.get("/readyz").await.status(), 503);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    outage.end().await;
    let started = Instant::now();
    loop {
        let status = keyed(read).await.expect("sent").status();
        if status == 200 {
            answered += 1;
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "not recovered: {status}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(app.get("/readyz").await.status(), 200);
    let account = keyed("/api/v1/account").await.expect("sent");
    let account: serde_json::Value = account.json().await.expect("JSON");
    assert_eq!(account["data"]["balance"], 100 - answered, "{account}");
    let report = manabi_tests::admin(url, &["ledger", "verify", "--catch-up"]);
    assert_eq!(report["ok"], true, "{report}");
}

/// `manabi serve` killed with SIGKILL under keyed load: every invoice a client received
/// is in the ledger afterwards (an answer leaves only after its charge is durable), and
/// the ledger verifies. On SQLite and on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_every_invoice_answered_before_a_kill_is_in_the_ledger() {
    every_invoice_answered_before_a_kill_is_in_the_ledger(manabi_tests::ledger::fresh_sqlite_db())
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_every_invoice_answered_before_a_kill_is_in_the_ledger() {
    use manabi_tests::ledger::{Backend, fresh_db};
    every_invoice_answered_before_a_kill_is_in_the_ledger(fresh_db(Backend::Postgres).await).await;
}

async fn every_invoice_answered_before_a_kill_is_in_the_ledger(db: manabi_tests::ledger::TestDb) {
    let mut app = spawn_binary_with(&[
        ("MANABI_DATABASE_URL", db.url.as_str()),
        ("MANABI_KEY_RATE_PER_SEC", "0"),
    ])
    .await;
    let (_, _, key) = manabi_tests::funded_key(&db.url, 1_000_000);
    let url = format!("{}/api/v1/learnables/vocab-sake", app.address);
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let workers: Vec<_> = (0..16)
        .map(|_| {
            let (client, url, key) = (client.clone(), url.clone(), key.clone());
            tokio::spawn(async move {
                let mut invoices = Vec::new();
                loop {
                    let sent = client.get(&url).header("x-api-key", &key).send().await;
                    let Ok(response) = sent else { break };
                    let Ok(body) = response.json::<serde_json::Value>().await else {
                        break;
                    };
                    if let Some(id) = body["billing"]["invoice_id"].as_str() {
                        invoices.push(id.to_owned());
                    }
                }
                invoices
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    app.kill();
    let mut answered = Vec::new();
    for worker in workers {
        answered.extend(worker.await.expect("worker"));
    }
    assert!(answered.len() > 50, "load ran: {}", answered.len());

    use sqlx::Connection;
    let charges = "SELECT CAST(id AS TEXT) FROM events WHERE event_type = 'CallCharged'";
    let stored: std::collections::HashSet<String> = if db.url.starts_with("sqlite") {
        let mut conn = sqlx::SqliteConnection::connect(&db.url)
            .await
            .expect("ledger");
        sqlx::query_scalar(charges).fetch_all(&mut conn).await
    } else {
        let mut conn = sqlx::PgConnection::connect(&db.url).await.expect("ledger");
        sqlx::query_scalar(charges).fetch_all(&mut conn).await
    }
    .expect("charges")
    .into_iter()
    .collect();
    let missing: Vec<&String> = answered.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(
        missing.is_empty(),
        "{} answered invoices are not in the ledger",
        missing.len()
    );
    let report = manabi_tests::admin(&db.url, &["ledger", "verify", "--catch-up"]);
    assert_eq!(report["ok"], true, "{report}");
}
