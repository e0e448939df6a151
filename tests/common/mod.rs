//! The support every black-box test shares. Servers: [`spawn_app`] builds the real
//! application in this process on a free loopback port with a fresh data directory (Zero
//! To Production's `spawn_app`); [`spawn_binary_with`] starts the real `manabi` binary,
//! for the smoke tests of the binary itself. Databases: [`ledger`] gives each test a
//! fresh SQLite file or PostgreSQL schema. The fixture artifact: [`fixture`].

pub mod deepl;
pub mod fixture;
pub mod ledger;
pub mod oidc;
pub mod pg_cluster;
pub mod portal;
pub mod proxy;
pub mod smtp;
pub mod stripe;
pub mod x402;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use manabi_api::Application;
use manabi_api::settings::{ArtifactSource, serve_options_from_pairs};
use tokio::sync::oneshot;

/// A running server; stopped and cleaned up when dropped.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    server: Server,
    dir: PathBuf,
}

enum Server {
    /// Stops when the sender is dropped.
    InProcess(#[allow(dead_code)] oneshot::Sender<()>),
    Binary(Child),
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Server::Binary(child) = &mut self.server {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How long a test waits for the server to load its artifact (the full dataset takes a
/// few seconds in a debug build on a busy machine).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The `manabi` binary of this build (`cargo build --bin manabi` puts it beside the test
/// executables' `deps` directory; `scripts/test` builds it first).
pub fn manabi_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable sits in <target>/<profile>/deps");
    let binary = profile_dir.join("manabi");
    assert!(
        binary.is_file(),
        "{} is missing: run `cargo build --bin manabi` first",
        binary.display()
    );
    binary
}

/// A fresh directory for one test.
fn test_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("manabi-http-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// A server on the fixture artifact, keyless limit off, ready to answer.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[("MANABI_KEYLESS_RATE_PER_SEC", "0")]).await
}

/// A server with extra `MANABI_*` settings, ready to answer.
pub async fn spawn_app_with(env: &[(&str, &str)]) -> TestApp {
    let dir = test_dir();
    let artifact = dir.join("artifact.jsonl.zst");
    fixture::write_artifact(&artifact);
    let app = start_in_process(dir, &artifact, env).await;
    app.wait_ready().await;
    app
}

/// A server whose artifact is the given bytes (not waited on: it may never be ready).
pub async fn spawn_app_with_artifact_bytes(bytes: &[u8]) -> TestApp {
    let dir = test_dir();
    let artifact = dir.join("artifact.jsonl.zst");
    std::fs::write(&artifact, bytes).expect("write artifact");
    start_in_process(dir, &artifact, &[]).await
}

/// The committed dataset artifact, if the dataset pipeline has produced one.
pub fn committed_artifact() -> Option<PathBuf> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/manabi-dataset.jsonl.zst"
    ));
    path.is_file().then_some(path)
}

/// A server on the committed artifact, keyless limit off, ready to answer.
pub async fn spawn_app_on_committed_artifact(path: PathBuf) -> TestApp {
    spawn_app_on_committed_artifact_with(path, &[]).await
}

/// A server on the committed artifact with extra `MANABI_*` settings, keyless limit off,
/// ready to answer.
pub async fn spawn_app_on_committed_artifact_with(path: PathBuf, env: &[(&str, &str)]) -> TestApp {
    let mut all = vec![("MANABI_KEYLESS_RATE_PER_SEC", "0")];
    all.extend_from_slice(env);
    let app = start_in_process(test_dir(), &path, &all).await;
    app.wait_ready().await;
    app
}

/// The application of `manabi serve`, built from the same options the binary parses,
/// serving on a task of the test's runtime until the [`TestApp`] is dropped.
async fn start_in_process(dir: PathBuf, artifact: &Path, env: &[(&str, &str)]) -> TestApp {
    let data_dir = dir.join("var");
    let (data_dir, artifact) = (data_dir.to_string_lossy(), artifact.to_string_lossy());
    let mut pairs = vec![
        ("MANABI_BIND", "127.0.0.1:0"),
        ("MANABI_DATA_DIR", data_dir.as_ref()),
        ("MANABI_ARTIFACT", artifact.as_ref()),
    ];
    pairs.extend_from_slice(env);
    let options = serve_options_from_pairs(&pairs).expect("valid MANABI_* settings");
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .expect("bind a loopback port");
    let bound = listener.local_addr().expect("bound address");
    let settings = options
        .settings(bound, ArtifactSource::File(PathBuf::new()))
        .expect("settings");
    let application = Application::build(settings, listener)
        .await
        .expect("the application starts");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(application.run_until(async move {
        let _ = stopped.await;
    }));
    TestApp {
        address: format!("http://{bound}"),
        client: client(),
        server: Server::InProcess(stop),
        dir,
    }
}

/// The real `manabi serve` on the fixture artifact with extra `MANABI_*` variables,
/// ready to answer.
pub async fn spawn_binary_with(env: &[(&str, &str)]) -> TestApp {
    let dir = test_dir();
    let artifact = dir.join("artifact.jsonl.zst");
    fixture::write_artifact(&artifact);
    let mut command = serve_command(&dir, &artifact);
    for (name, value) in env {
        command.env(name, value);
    }
    let app = start_binary(command, dir);
    app.wait_ready().await;
    app
}

/// `manabi serve` on a free loopback port, with its data under `dir/var` and `artifact`
/// as its dataset, logging warnings only, and no base address or config file inherited.
pub fn serve_command(dir: &Path, artifact: &Path) -> Command {
    let mut command = Command::new(manabi_binary());
    command
        .arg("serve")
        .env("MANABI_BIND", "127.0.0.1:0")
        .env("MANABI_DATA_DIR", dir.join("var"))
        .env("MANABI_ARTIFACT", artifact)
        .env("MANABI_LOG", "warn")
        .env_remove("MANABI_BASE_URL")
        .env_remove("MANABI_CONFIG");
    command
}

/// Starts `command` (a `manabi serve`) and reads the address it prints; its standard
/// error goes where `command` says (the test's own by default).
pub fn start_binary(mut command: Command, dir: PathBuf) -> TestApp {
    command.stdout(Stdio::piped());
    let mut child = command.spawn().expect("start manabi serve");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read the listening line");
    let address = line
        .trim()
        .strip_prefix("manabi listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    TestApp {
        address,
        client: client(),
        server: Server::Binary(child),
        dir,
    }
}

/// `manabi admin …` on the ledger at `database_url`; its stdout is one JSON object.
pub fn admin(database_url: &str, args: &[&str]) -> serde_json::Value {
    let output = Command::new(manabi_binary())
        .arg("admin")
        .args(args)
        .env("MANABI_DATABASE_URL", database_url)
        .env("MANABI_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run manabi admin");
    assert!(
        output.status.success(),
        "admin {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("admin prints JSON")
}

/// A new account on the ledger at `database_url` holding `points`, and one key of it:
/// `(account id, key id, API key)`.
pub fn funded_key(database_url: &str, points: i64) -> (String, String, String) {
    let text = |value: &serde_json::Value| value.as_str().expect("a string").to_owned();
    let email = format!("buyer-{}@example.com", uuid::Uuid::now_v7());
    let account =
        text(&admin(database_url, &["account", "create", "--email", &email])["account_id"]);
    if points > 0 {
        let (points, key) = (points.to_string(), format!("seed-{account}"));
        let args = [
            "topup",
            "--account",
            &account,
            "--points",
            &points,
            "--idempotency-key",
            &key,
        ];
        admin(database_url, &args);
    }
    let key = admin(database_url, &["key", "create", "--account", &account]);
    (account, text(&key["key_id"]), text(&key["api_key"]))
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("http client")
}

impl TestApp {
    /// SIGKILL the server (a binary one), as a crash would.
    pub fn kill(&mut self) {
        if let Server::Binary(child) = &mut self.server {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub async fn wait_ready(&self) {
        let started = Instant::now();
        while started.elapsed() < READY_TIMEOUT {
            if let Ok(response) = self
                .client
                .get(format!("{}/readyz", self.address))
                .send()
                .await
                && response.status() == 200
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "server at {} not ready within {READY_TIMEOUT:?}",
            self.address
        );
    }

    pub async fn get(&self, path_and_query: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{}", self.address, path_and_query))
            .send()
            .await
            .expect("request sent")
    }

    /// GET and parse the JSON body, returning the status too.
    pub async fn get_json(&self, path_and_query: &str) -> (u16, serde_json::Value) {
        let response = self.get(path_and_query).await;
        let status = response.status().as_u16();
        let body = response.json().await.expect("JSON body");
        (status, body)
    }

    /// The ids of a search answer, in rank order.
    pub async fn search_ids(&self, query_string: &str) -> Vec<String> {
        let (status, body) = self
            .get_json(&format!("/api/v1/learnables?{query_string}"))
            .await;
        assert_eq!(status, 200, "{query_string}: {body}");
        body["data"]["results"]
            .as_array()
            .expect("results array")
            .iter()
            .map(|result| result["id"].as_str().expect("id").to_owned())
            .collect()
    }
}

/// Asserts a failure envelope with the given status and code.
pub fn assert_error(status: u16, body: &serde_json::Value, want_status: u16, code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["ok"], false, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    for member in ["required", "balance", "top_up_url"] {
        assert!(
            body["error"].get(member).is_some(),
            "missing error.{member}: {body}"
        );
    }
}
