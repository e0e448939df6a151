//! The translation provider against a stand-in for DeepL's API v2 on loopback: batching,
//! order, and every way DeepL fails turning into `TranslateError::Unavailable`.

use std::time::{Duration, Instant};

use manabi_localize::TranslateError;
use manabi_localize::locales::LocaleCode;
use manabi_localize::provider::{Provider, ProviderConfig};
use manabi_tests::deepl::{FakeDeepl, Mode};
use secrecy::SecretString;
use serde_json::Value;

fn provider_with(fake: &FakeDeepl, auth_key: &str, timeout: Duration) -> Provider {
    Provider::new(ProviderConfig {
        base_url: fake.url.clone(),
        auth_key: SecretString::from(auth_key.to_owned()),
        timeout,
        name: "deepl".to_owned(),
    })
}

fn provider(fake: &FakeDeepl) -> Provider {
    provider_with(fake, FakeDeepl::AUTH_KEY, Duration::from_secs(10))
}

fn locale(raw: &str) -> LocaleCode {
    LocaleCode::parse(raw).expect("an ISO 639-1 code")
}

fn numbered(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("text {i}")).collect()
}

/// The reason and wait of an `Unavailable`, failing on anything else.
fn unavailable(result: Result<Vec<String>, TranslateError>) -> (String, Option<u64>) {
    match result {
        Err(TranslateError::Unavailable {
            reason,
            retry_after,
        }) => (reason, retry_after),
        other => panic!("expected Unavailable, got {other:?}"),
    }
}

#[tokio::test]
async fn translates_a_batch_in_order_in_one_request() {
    let fake = FakeDeepl::start().await;
    let texts = vec![
        "to eat".to_owned(),
        "a \"quoted\" word".to_owned(),
        "日本".to_owned(),
    ];

    let translated = provider(&fake).translate(locale("pt"), &texts).await;

    let want = ["[pt] to eat", "[pt] a \"quoted\" word", "[pt] 日本"];
    assert_eq!(translated.expect("translated"), want);
    assert_eq!((fake.calls(), fake.texts()), (1, 3));
}

#[tokio::test]
async fn a_hundred_and_twenty_texts_take_three_requests() {
    let fake = FakeDeepl::start().await;
    let texts = numbered(120);

    let translated = provider(&fake)
        .translate(locale("de"), &texts)
        .await
        .expect("translated");

    let want: Vec<String> = texts.iter().map(|text| format!("[de] {text}")).collect();
    assert_eq!(translated, want);
    assert_eq!((fake.calls(), fake.texts()), (3, 120));
}

#[tokio::test]
async fn long_texts_are_split_by_the_body_limit() {
    let fake = FakeDeepl::start().await;
    // Two fit in DeepL's 128 KiB body, three do not: the stand-in answers 413 over it.
    let texts: Vec<String> = (0..3)
        .map(|i| format!("{i}{}", "a".repeat(50_000)))
        .collect();

    let translated = provider(&fake)
        .translate(locale("fr"), &texts)
        .await
        .expect("translated");

    assert_eq!(translated.len(), 3);
    assert!(translated[2].starts_with("[fr] 2aaa"));
    assert_eq!((fake.calls(), fake.texts()), (2, 3));
}

#[tokio::test]
async fn every_served_locale_is_a_target_deepl_accepts() {
    let fake = FakeDeepl::start().await;
    let provider = provider(&fake);
    let targets = provider.targets();
    assert!(targets.len() >= 30, "{targets:?}");

    for target in targets {
        let translated = provider.translate(target, &["hello".to_owned()]).await;
        assert_eq!(
            translated,
            Ok(vec![format!("[{target}] hello")]),
            "{target}"
        );
        let model = provider.info(target).model.expect("a DeepL code");
        assert_eq!(
            model.split('-').next(),
            Some(target.as_str().to_uppercase().as_str())
        );
    }
    assert_eq!(provider.info(locale("pt")).model.as_deref(), Some("PT-BR"));
    assert_eq!(
        provider.info(locale("zh")).model.as_deref(),
        Some("ZH-HANS")
    );
}

#[tokio::test]
async fn an_unserved_locale_is_unsupported_without_a_request() {
    let fake = FakeDeepl::start().await;
    let provider = provider(&fake);

    for raw in ["eo", "en", "sw"] {
        let result = provider.translate(locale(raw), &numbered(2)).await;
        assert_eq!(result, Err(TranslateError::Unsupported(raw.to_owned())));
        assert!(!provider.serves(locale(raw)));
    }
    assert_eq!(fake.calls(), 0);
}

#[tokio::test]
async fn no_texts_make_no_request() {
    let fake = FakeDeepl::start().await;

    let translated = provider(&fake).translate(locale("ja"), &[]).await;

    assert_eq!(translated, Ok(vec![]));
    assert_eq!(fake.calls(), 0);
}

#[tokio::test]
async fn too_many_requests_carries_retry_after() {
    let fake = FakeDeepl::start().await;
    fake.set_mode(Mode::Status(429));

    let (reason, retry_after) =
        unavailable(provider(&fake).translate(locale("pt"), &numbered(3)).await);

    assert!(reason.contains("429"), "{reason}");
    assert_eq!(retry_after, Some(FakeDeepl::RETRY_AFTER_SECS));
    assert_eq!((fake.calls(), fake.texts()), (1, 0));
}

#[tokio::test]
async fn quota_exceeded_is_unavailable() {
    let fake = FakeDeepl::start().await;
    fake.set_mode(Mode::Status(456));

    let (reason, retry_after) =
        unavailable(provider(&fake).translate(locale("pt"), &numbered(3)).await);

    assert!(
        reason.contains("quota") && reason.contains("456"),
        "{reason}"
    );
    assert_eq!(retry_after, None);
}

#[tokio::test]
async fn server_errors_are_unavailable() {
    let fake = FakeDeepl::start().await;
    let provider = provider(&fake);

    for code in [500, 503, 529] {
        fake.set_mode(Mode::Status(code));
        let (reason, _) = unavailable(provider.translate(locale("pt"), &numbered(3)).await);
        assert!(reason.contains(&code.to_string()), "{reason}");
    }
}

#[tokio::test]
async fn a_failure_in_a_later_batch_fails_the_whole_call() {
    let fake = FakeDeepl::start().await;
    let provider = provider(&fake);
    provider
        .translate(locale("pt"), &numbered(1))
        .await
        .expect("up");
    fake.set_mode(Mode::Status(503));

    unavailable(provider.translate(locale("pt"), &numbered(120)).await);

    assert_eq!(fake.calls(), 2, "stops at the first failed batch");
}

#[tokio::test]
async fn a_hanging_provider_times_out() {
    let fake = FakeDeepl::start().await;
    fake.set_mode(Mode::Hang);
    let provider = provider_with(&fake, FakeDeepl::AUTH_KEY, Duration::from_millis(300));

    let started = Instant::now();
    let (reason, _) = unavailable(provider.translate(locale("pt"), &numbered(3)).await);

    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
    assert!(reason.contains("300 ms"), "{reason}");
}

#[tokio::test]
async fn a_wrong_key_is_unavailable_and_never_printed() {
    let fake = FakeDeepl::start().await;
    let wrong_key = "0b6a2f1e-5c4d-4e3f-8a7b-9c8d7e6f5a4b:fx";
    let provider = provider_with(&fake, wrong_key, Duration::from_secs(10));

    let result = provider.translate(locale("pt"), &numbered(3)).await;

    let printed = format!("{result:?} {provider:?}");
    assert!(!printed.contains(wrong_key), "{printed}");
    let (reason, _) = unavailable(result);
    assert!(reason.contains("403"), "{reason}");
    assert!(!reason.contains(wrong_key));
}

#[tokio::test]
async fn nothing_listens_is_unavailable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    drop(listener);
    let provider = Provider::new(ProviderConfig {
        base_url: url,
        auth_key: SecretString::from(FakeDeepl::AUTH_KEY.to_owned()),
        timeout: Duration::from_secs(5),
        name: "deepl".to_owned(),
    });

    let (reason, _) = unavailable(provider.translate(locale("pt"), &numbered(1)).await);

    assert!(reason.contains("connect"), "{reason}");
}

#[tokio::test]
async fn an_answer_short_of_a_translation_is_unavailable() {
    let fake = FakeDeepl::start().await;
    fake.set_mode(Mode::DropLast);

    let (reason, _) = unavailable(provider(&fake).translate(locale("pt"), &numbered(3)).await);

    assert!(reason.contains("2 translations for 3 texts"), "{reason}");
}

/// The stand-in itself: DeepL accepts form-encoded bodies too, with `text` repeated.
#[tokio::test]
async fn the_stand_in_speaks_deepls_form_encoding_and_language_list() {
    let fake = FakeDeepl::start().await;
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let auth = format!("DeepL-Auth-Key {}", FakeDeepl::AUTH_KEY);

    let form = [
        ("text", "one"),
        ("text", "two & more"),
        ("target_lang", "pt-pt"),
    ];
    let response = client
        .post(format!("{}/v2/translate", fake.url))
        .header("Authorization", &auth)
        .form(&form)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["translations"][1]["text"], "[pt] two & more");
    assert_eq!(body["translations"][0]["detected_source_language"], "EN");

    let response = client
        .get(format!("{}/v2/languages?type=target", fake.url))
        .header("Authorization", &auth)
        .send()
        .await
        .expect("sent");
    let list: Value = response.json().await.expect("JSON");
    let codes: Vec<&str> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|l| l["language"].as_str().expect("code"))
        .collect();
    assert!(
        codes.contains(&"PT-BR") && codes.contains(&"ZH-HANS"),
        "{codes:?}"
    );

    let too_many: Vec<(&str, &str)> = std::iter::repeat_n(("text", "x"), 51)
        .chain([("target_lang", "DE")])
        .collect();
    let response = client
        .post(format!("{}/v2/translate", fake.url))
        .header("Authorization", &auth)
        .form(&too_many)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 413);
}
