//! A stand-in OpenID Connect provider on a loopback port, speaking the protocol the
//! portal uses, under the issuer `http://127.0.0.1:<port>/realms/manabi`:
//! - `/.well-known/openid-configuration`: the discovery document, naming one signing
//!   algorithm (RS256 or ES256) and one client authentication (`client_secret_basic` or
//!   `client_secret_post`);
//! - `/jwks`: the public half of a key generated at start;
//! - `/authorize`: checks the request (client, `openid` scope, PKCE S256) and sends the
//!   browser straight back with a code, as if the person had signed in; the code keeps
//!   the redirect URI, nonce and challenge;
//! - `/token`: the code once, for the client authenticated as announced, with the
//!   verifier of its challenge; answers an ID token signed with the key.
//!
//! Tests choose who signs in ([`FakeOidc::sign_in_as`]), rotate the key
//! ([`FakeOidc::rotate_key`]) and spoil the ID tokens ([`Spoil`]): another nonce or
//! audience, expired, an unverified address, or signed with a key the provider does not
//! publish.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub const CLIENT_ID: &str = "manabi-portal";
pub const CLIENT_SECRET: &str = "oidc-client-secret";
/// The issuer's path below the stand-in's address.
const REALM: &str = "/realms/manabi";

/// The algorithm the provider signs ID tokens with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    Rs256,
    Es256,
}

/// How the provider wants the client to authenticate at its token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    Basic,
    Post,
}

/// What is wrong with the ID tokens the provider issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spoil {
    Nothing,
    /// A nonce other than the authorization request's.
    Nonce,
    /// Issued for another client.
    Audience,
    /// Expired ten minutes ago.
    Expired,
    /// `email_verified` false.
    Unverified,
    /// Signed with a fresh key under the published key's id (a forgery).
    OtherKey,
}

enum Secret {
    Rsa(Box<rsa::RsaPrivateKey>),
    Ec(p256::ecdsa::SigningKey),
}

/// A signing key and its key id.
struct Key {
    kid: String,
    secret: Secret,
}

impl Key {
    fn generate(signing: Signing, kid: &str) -> Key {
        let mut rng = rand::rngs::OsRng;
        let secret = match signing {
            Signing::Rs256 => Secret::Rsa(Box::new(
                rsa::RsaPrivateKey::new(&mut rng, 2048).expect("an RSA key"),
            )),
            Signing::Es256 => Secret::Ec(p256::ecdsa::SigningKey::random(&mut rng)),
        };
        Key {
            kid: kid.to_owned(),
            secret,
        }
    }

    fn alg(&self) -> &'static str {
        match self.secret {
            Secret::Rsa(_) => "RS256",
            Secret::Ec(_) => "ES256",
        }
    }

    /// The public key as a JWK.
    fn jwk(&self) -> Value {
        let kid = &self.kid;
        match &self.secret {
            Secret::Rsa(key) => json!({
                "kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
                "n": URL_SAFE_NO_PAD.encode(key.n().to_bytes_be()),
                "e": URL_SAFE_NO_PAD.encode(key.e().to_bytes_be()),
            }),
            Secret::Ec(key) => {
                let point = key.verifying_key().to_encoded_point(false);
                json!({
                    "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
                    "x": URL_SAFE_NO_PAD.encode(point.x().expect("uncompressed")),
                    "y": URL_SAFE_NO_PAD.encode(point.y().expect("uncompressed")),
                })
            }
        }
    }

    /// A compact JWS of `claims`.
    fn sign(&self, claims: &Value) -> String {
        let header = json!({"alg": self.alg(), "typ": "JWT", "kid": self.kid});
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature: Vec<u8> = match &self.secret {
            Secret::Rsa(key) => {
                let signer = rsa::pkcs1v15::SigningKey::<Sha256>::new(key.as_ref().clone());
                let signature: rsa::pkcs1v15::Signature = signer.sign(input.as_bytes());
                signature.to_vec()
            }
            Secret::Ec(key) => {
                let signature: p256::ecdsa::Signature = key.sign(input.as_bytes());
                signature.to_bytes().to_vec()
            }
        };
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }
}

/// A code's authorization request, kept until the code is exchanged.
struct Grant {
    redirect_uri: String,
    nonce: String,
    challenge: String,
    email: String,
}

struct Provider {
    issuer: String,
    signing: Signing,
    auth: ClientAuth,
    key: Mutex<Arc<Key>>,
    person: Mutex<String>,
    spoil: Mutex<Spoil>,
    codes: Mutex<HashMap<String, Grant>>,
    counter: AtomicUsize,
    token_requests: AtomicUsize,
}

/// A running stand-in.
#[derive(Clone)]
pub struct FakeOidc {
    /// `http://127.0.0.1:<port>/realms/manabi`, exactly as the ID tokens' `iss`.
    pub issuer: String,
    state: Arc<Provider>,
}

impl FakeOidc {
    pub async fn start(signing: Signing, auth: ClientAuth) -> FakeOidc {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!("http://{}{REALM}", listener.local_addr().expect("address"));
        let state = Arc::new(Provider {
            issuer: issuer.clone(),
            signing,
            auth,
            key: Mutex::new(Arc::new(Key::generate(signing, "stand-in-1"))),
            person: Mutex::new("person@example.com".to_owned()),
            spoil: Mutex::new(Spoil::Nothing),
            codes: Mutex::new(HashMap::new()),
            counter: AtomicUsize::new(0),
            token_requests: AtomicUsize::new(0),
        });
        let realm = Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/jwks", get(jwks))
            .route("/authorize", get(authorize))
            .route("/token", post(token));
        let app = Router::new().nest(REALM, realm).with_state(state.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeOidc { issuer, state }
    }

    /// The address the provider signs in next (verified unless spoiled).
    pub fn sign_in_as(&self, email: &str) {
        *self.state.person.lock().expect("person") = email.to_owned();
    }

    /// Spoils every ID token issued from now on.
    pub fn spoil(&self, spoil: Spoil) {
        *self.state.spoil.lock().expect("spoil") = spoil;
    }

    /// Replaces the signing key with a new one under a new key id, as a provider rotating
    /// its keys does: the old one is no longer published.
    pub fn rotate_key(&self) {
        let mut key = self.state.key.lock().expect("key");
        let kid = format!("{}-next", key.kid);
        *key = Arc::new(Key::generate(self.state.signing, &kid));
    }

    /// Requests made to the token endpoint so far.
    pub fn token_requests(&self) -> usize {
        self.state.token_requests.load(Ordering::SeqCst)
    }
}

impl Provider {
    fn key(&self) -> Arc<Key> {
        self.key.lock().expect("key").clone()
    }
}

async fn discovery(State(state): State<Arc<Provider>>) -> Json<Value> {
    let issuer = &state.issuer;
    let method = match state.auth {
        ClientAuth::Basic => "client_secret_basic",
        ClientAuth::Post => "client_secret_post",
    };
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "jwks_uri": format!("{issuer}/jwks"),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "scopes_supported": ["openid", "email"],
        "id_token_signing_alg_values_supported": [state.key().alg()],
        "token_endpoint_auth_methods_supported": [method],
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn jwks(State(state): State<Arc<Provider>>) -> Json<Value> {
    // An encryption key beside it, as real providers publish: it must be passed over.
    let encryption = json!({"kty": "RSA", "use": "enc", "alg": "RSA-OAEP", "kid": "enc-1",
        "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw",
        "e": "AQAB"});
    Json(json!({"keys": [encryption, state.key().jwk()]}))
}

async fn authorize(
    State(state): State<Arc<Provider>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let field = |name: &str| query.get(name).cloned().unwrap_or_default();
    let valid = field("response_type") == "code"
        && field("client_id") == CLIENT_ID
        && field("scope").split(' ').any(|scope| scope == "openid")
        && field("code_challenge_method") == "S256"
        && field("code_challenge").len() == 43
        && !field("redirect_uri").is_empty()
        && !field("state").is_empty();
    if !valid {
        return (StatusCode::BAD_REQUEST, "invalid authorization request").into_response();
    }
    let n = state.counter.fetch_add(1, Ordering::SeqCst);
    let code = format!("code-{n}-{}", uuid::Uuid::now_v7().simple());
    let grant = Grant {
        redirect_uri: field("redirect_uri"),
        nonce: field("nonce"),
        challenge: field("code_challenge"),
        email: state.person.lock().expect("person").clone(),
    };
    state
        .codes
        .lock()
        .expect("codes")
        .insert(code.clone(), grant);
    let back: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("code", &code)
        .append_pair("state", &field("state"))
        .append_pair("iss", &state.issuer)
        .finish();
    Redirect::to(&format!("{}?{back}", field("redirect_uri"))).into_response()
}

fn token_error(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({"error": error}))).into_response()
}

/// The client, authenticated the one way the discovery document announces.
fn authenticated(state: &Provider, headers: &HeaderMap, form: &HashMap<String, String>) -> bool {
    match state.auth {
        ClientAuth::Basic => {
            let expected = format!(
                "Basic {}",
                STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"))
            );
            let header = headers.get("authorization").and_then(|v| v.to_str().ok());
            header == Some(expected.as_str()) && !form.contains_key("client_secret")
        }
        ClientAuth::Post => {
            !headers.contains_key("authorization")
                && form.get("client_id").map(String::as_str) == Some(CLIENT_ID)
                && form.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET)
        }
    }
}

async fn token(
    State(state): State<Arc<Provider>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    state.token_requests.fetch_add(1, Ordering::SeqCst);
    if !authenticated(&state, &headers, &form) {
        return token_error(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    if field("grant_type") != "authorization_code" {
        return token_error(StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let Some(grant) = state.codes.lock().expect("codes").remove(&field("code")) else {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant");
    };
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(field("code_verifier").as_bytes()));
    if grant.redirect_uri != field("redirect_uri") || grant.challenge != challenge {
        return token_error(StatusCode::BAD_REQUEST, "invalid_grant");
    }
    let id_token = id_token(&state, &grant);
    Json(json!({
        "access_token": format!("at-{}", uuid::Uuid::now_v7().simple()),
        "token_type": "Bearer",
        "expires_in": 300,
        "id_token": id_token,
    }))
    .into_response()
}

fn id_token(state: &Provider, grant: &Grant) -> String {
    let spoil = *state.spoil.lock().expect("spoil");
    let now = chrono::Utc::now().timestamp();
    let (iat, exp) = if spoil == Spoil::Expired {
        (now - 900, now - 600)
    } else {
        (now, now + 300)
    };
    let claims = json!({
        "iss": state.issuer,
        "sub": format!("user-{}", hex::encode(Sha256::digest(grant.email.as_bytes()))),
        "aud": if spoil == Spoil::Audience { "another-client" } else { CLIENT_ID },
        "exp": exp,
        "iat": iat,
        "auth_time": iat,
        "nonce": if spoil == Spoil::Nonce { "not-this-attempt" } else { grant.nonce.as_str() },
        "email": grant.email,
        "email_verified": spoil != Spoil::Unverified,
    });
    let key = state.key();
    if spoil == Spoil::OtherKey {
        Key::generate(state.signing, &key.kid).sign(&claims)
    } else {
        key.sign(&claims)
    }
}
