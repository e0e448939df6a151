//! Starts the real `manabi` binary on a free loopback port against a fresh data
//! directory and a fixture artifact, and talks HTTP to it (Zero To Production's
//! `spawn_app`). Every test gets its own server, so tests run in parallel.

#![allow(dead_code)]

pub mod fixture;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server; stopped and cleaned up when dropped.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    child: Child,
    dir: PathBuf,
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// How long a test waits for the server to load its artifact (the full dataset takes a
/// few seconds in a debug build on a busy machine).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// A server on the fixture artifact, keyless limit off, ready to answer.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(&[("MANABI_KEYLESS_RATE_PER_SEC", "0")]).await
}

/// A server with extra `MANABI_*` variables, ready to answer.
pub async fn spawn_app_with(env: &[(&str, &str)]) -> TestApp {
    let app = start(env, Artifact::Fixture);
    app.wait_ready().await;
    app
}

/// A server whose artifact is the given bytes (not waited on: it may never be ready).
pub fn spawn_app_with_artifact_bytes(bytes: &[u8]) -> TestApp {
    start(&[], Artifact::Bytes(bytes))
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
    let app = start(
        &[("MANABI_KEYLESS_RATE_PER_SEC", "0")],
        Artifact::Path(path),
    );
    app.wait_ready().await;
    app
}

enum Artifact<'a> {
    Fixture,
    Bytes(&'a [u8]),
    Path(PathBuf),
}

fn start(env: &[(&str, &str)], source: Artifact<'_>) -> TestApp {
    let dir = std::env::temp_dir().join(format!("manabi-http-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).expect("create test dir");
    let mut artifact = dir.join("artifact.jsonl.zst");
    match source {
        Artifact::Bytes(bytes) => std::fs::write(&artifact, bytes).expect("write artifact"),
        Artifact::Fixture => fixture::write_artifact(&artifact),
        Artifact::Path(path) => artifact = path,
    }
    let mut command = Command::new(env!("CARGO_BIN_EXE_manabi"));
    command
        .arg("serve")
        .env("MANABI_BIND", "127.0.0.1:0")
        .env("MANABI_DATA_DIR", dir.join("var"))
        .env("MANABI_ARTIFACT", &artifact)
        .env("MANABI_LOG", "warn")
        .env_remove("MANABI_BASE_URL")
        .env_remove("MANABI_CONFIG")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in env {
        command.env(name, value);
    }
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
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("http client");
    TestApp {
        address,
        client,
        child,
        dir,
    }
}

impl TestApp {
    async fn wait_ready(&self) {
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
