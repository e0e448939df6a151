//! Limits and cross-cutting behaviour over HTTP: URI, query, header and body bounds,
//! the keyless rate limit, compression and request ids.

use manabi_tests as common;

use common::{assert_error, spawn_app};

#[tokio::test]
async fn long_uris_and_queries_are_414() {
    let app = spawn_app().await;
    let long_path = format!("/api/v1/learnables/{}", "x".repeat(2100));
    let (status, body) = app.get_json(&long_path).await;
    assert_error(status, &body, 414, "URI_TOO_LONG");
    let long_query = format!("/api/v1/learnables?query=a&pad={}", "y".repeat(1100));
    let (status, body) = app.get_json(&long_query).await;
    assert_error(status, &body, 414, "URI_TOO_LONG");
}

#[tokio::test]
async fn large_headers_are_431() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(format!("{}/api/v1", app.address))
        .header("x-padding", "z".repeat(9000))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 431);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_error(431, &body, 431, "HEADERS_TOO_LARGE");
}

#[tokio::test]
async fn large_bodies_are_413() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(format!("{}/api/v1", app.address))
        .body(vec![b'b'; 128 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_error(413, &body, 413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn keyless_callers_are_rate_limited_per_address() {
    let app = common::spawn_app_with(&[
        ("MANABI_KEYLESS_RATE_PER_SEC", "1"),
        ("MANABI_KEYLESS_BURST", "3"),
    ])
    .await;
    let mut limited = None;
    for _ in 0..10 {
        let response = app.get("/api/v1/learnables/vocab-taberu").await;
        if response.status() == 429 {
            limited = Some(response);
            break;
        }
    }
    let response = limited.expect("a 429 within 10 quick requests");
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry_after >= 1);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_error(429, &body, 429, "RATE_LIMITED");
    // Health and metrics are not rate limited.
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test]
async fn answers_are_compressed_when_asked() {
    let app = spawn_app().await;
    for encoding in ["gzip", "br"] {
        let response = app
            .client
            .get(format!("{}/api/v1/openapi.json", app.address))
            .header("accept-encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-encoding"], encoding);
    }
    let plain = app.get("/api/v1/openapi.json").await;
    assert!(!plain.headers().contains_key("content-encoding"));
}

#[tokio::test]
async fn every_answer_carries_a_request_id() {
    let app = spawn_app().await;
    for path in ["/api/v1", "/api/v1/learnables/nope", "/nowhere", "/healthz"] {
        let response = app.get(path).await;
        let id = response
            .headers()
            .get("x-request-id")
            .expect("x-request-id");
        assert_eq!(id.len(), 36, "{path}");
    }
    let response = app
        .client
        .get(format!("{}/api/v1", app.address))
        .header("x-request-id", "caller-chosen-id")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "caller-chosen-id");
}

/// Browser apps: a CORS preflight is answered with the headers a keyed call uses, and a
/// successful answer carries the IETF `RateLimit` pair, not only a 429.
#[tokio::test]
async fn browsers_get_cors_and_every_answer_its_rate_limit() {
    let app = common::spawn_app_with(&[
        ("MANABI_KEYLESS_RATE_PER_SEC", "5"),
        ("MANABI_KEYLESS_BURST", "20"),
    ])
    .await;
    let url = format!("{}/api/v1/worlds", app.address);
    let preflight = app
        .client
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "https://app.example.com")
        .header("access-control-request-method", "GET")
        .header(
            "access-control-request-headers",
            "x-api-key, idempotency-key",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 200);
    let headers = preflight.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    let allowed = headers["access-control-allow-headers"].to_str().unwrap();
    assert!(
        allowed.contains("x-api-key") && allowed.contains("idempotency-key"),
        "{allowed}"
    );

    let answer = app
        .client
        .get(&url)
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let headers = answer.headers();
    assert_eq!(headers["access-control-allow-origin"], "*");
    let exposed = headers["access-control-expose-headers"].to_str().unwrap();
    assert!(exposed.contains("ratelimit"), "{exposed}");
    assert_eq!(headers["ratelimit"], "\"burst\";r=19;t=1");
    assert_eq!(headers["ratelimit-policy"], "\"burst\";q=5;w=1");
}
