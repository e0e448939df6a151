//! x402 for the tests: a stand-in facilitator on a loopback port, and a payer that signs
//! "exact" EVM payments with a throwaway key.
//!
//! The facilitator speaks the x402 facilitator protocol: `POST /verify` and
//! `POST /settle` take `{x402Version, paymentPayload, paymentRequirements}` and answer
//! `{isValid, invalidReason, payer}` and `{success, errorReason, transaction, network,
//! payer}`; `GET /supported` lists what it settles. It checks every payment itself (the
//! EIP-712 signature of the EIP-3009 authorization under the requirement's domain,
//! recipient, amount, window) and settles a nonce once, like the token contract would;
//! a settlement is a record with a made-up transaction hash. `GET /settlements` lists
//! them, for tests to count. [`SettleMode`] makes settlement fail.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use alloy_primitives::{Address, B256, Signature, U256, keccak256};
use alloy_sol_types::{Eip712Domain, SolStruct, sol};
use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use k256::ecdsa::SigningKey;
use serde_json::{Value, json};
use tokio::sync::oneshot;

sol! {
    struct TransferWithAuthorization {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }
}

/// The networks the stand-in settles: (v1 name, chain id).
const NETWORKS: [(&str, u64); 2] = [("base", 8453), ("base-sepolia", 84532)];

/// Base Sepolia USDC, the server's default asset in the tests.
pub const USDC_BASE_SEPOLIA: &str = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/// How `/settle` answers a payment that verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleMode {
    Ok,
    /// `{success: false, errorReason: "insufficient_funds"}`.
    Refuse,
    /// HTTP 500 with no protocol body, nothing settled.
    Broken,
    /// The transfer is settled, then the answer is lost (HTTP 500 with no protocol body).
    LostAnswer,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Settlement {
    pub payer: String,
    pub nonce: String,
    pub value: String,
    pub network: String,
    pub transaction: String,
}

struct FacilitatorState {
    settlements: Mutex<Vec<Settlement>>,
    mode: Mutex<SettleMode>,
    verifies: AtomicUsize,
    settles: AtomicUsize,
}

/// A running stand-in facilitator; stops when dropped.
pub struct FakeFacilitator {
    pub url: String,
    state: Arc<FacilitatorState>,
    _stop: oneshot::Sender<()>,
}

impl FakeFacilitator {
    /// On a free loopback port.
    pub async fn start() -> FakeFacilitator {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        FakeFacilitator::start_on(listener)
    }

    pub fn start_on(listener: tokio::net::TcpListener) -> FakeFacilitator {
        let state = Arc::new(FacilitatorState {
            settlements: Mutex::new(Vec::new()),
            mode: Mutex::new(SettleMode::Ok),
            verifies: AtomicUsize::new(0),
            settles: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/verify", post(verify))
            .route("/settle", post(settle))
            .route("/supported", get(supported))
            .route("/settlements", get(settlements))
            .with_state(state.clone());
        let address = listener.local_addr().expect("bound address");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await;
        });
        FakeFacilitator {
            url: format!("http://{address}"),
            state,
            _stop: stop,
        }
    }

    pub fn set_mode(&self, mode: SettleMode) {
        *self.state.mode.lock().expect("mode") = mode;
    }

    pub fn settlements(&self) -> Vec<Settlement> {
        self.state.settlements.lock().expect("settlements").clone()
    }

    pub fn verifies(&self) -> usize {
        self.state.verifies.load(Ordering::SeqCst)
    }

    pub fn settles(&self) -> usize {
        self.state.settles.load(Ordering::SeqCst)
    }
}

async fn supported() -> Json<Value> {
    let mut kinds = Vec::new();
    for (name, chain_id) in NETWORKS {
        kinds.push(json!({"x402Version": 1, "scheme": "exact", "network": name}));
        kinds.push(
            json!({"x402Version": 2, "scheme": "exact", "network": format!("eip155:{chain_id}")}),
        );
    }
    Json(json!({"kinds": kinds, "extensions": [], "signers": {}}))
}

async fn settlements(State(state): State<Arc<FacilitatorState>>) -> Json<Value> {
    Json(json!(*state.settlements.lock().expect("settlements")))
}

async fn verify(
    State(state): State<Arc<FacilitatorState>>,
    Json(body): Json<Value>,
) -> Json<Value> {
    state.verifies.fetch_add(1, Ordering::SeqCst);
    let answer = match check(&body) {
        Ok(checked) => {
            let used = state
                .settlements
                .lock()
                .expect("settlements")
                .iter()
                .any(|s| s.payer == checked.payer && s.nonce == checked.nonce);
            if used {
                json!({"isValid": false, "invalidReason": "nonce_already_used", "payer": checked.payer})
            } else {
                json!({"isValid": true, "payer": checked.payer})
            }
        }
        Err(reason) => json!({"isValid": false, "invalidReason": reason}),
    };
    Json(answer)
}

async fn settle(
    State(state): State<Arc<FacilitatorState>>,
    Json(body): Json<Value>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    state.settles.fetch_add(1, Ordering::SeqCst);
    let mode = *state.mode.lock().expect("mode");
    let checked = match check(&body) {
        Ok(checked) => checked,
        Err(reason) => {
            return Json(
                json!({"success": false, "errorReason": reason, "transaction": "", "network": ""}),
            )
            .into_response();
        }
    };
    match mode {
        SettleMode::Broken => {
            return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response();
        }
        SettleMode::Refuse => {
            return Json(
                json!({"success": false, "errorReason": "insufficient_funds",
                "transaction": "", "network": checked.network, "payer": checked.payer}),
            )
            .into_response();
        }
        SettleMode::Ok | SettleMode::LostAnswer => {}
    }
    let mut settlements = state.settlements.lock().expect("settlements");
    if settlements
        .iter()
        .any(|s| s.payer == checked.payer && s.nonce == checked.nonce)
    {
        return Json(
            json!({"success": false, "errorReason": "nonce_already_used",
            "transaction": "", "network": checked.network, "payer": checked.payer}),
        )
        .into_response();
    }
    let transaction = format!(
        "{:#x}",
        keccak256(format!("{}{}", checked.payer, checked.nonce))
    );
    settlements.push(Settlement {
        payer: checked.payer.clone(),
        nonce: checked.nonce.clone(),
        value: checked.value.clone(),
        network: checked.network.clone(),
        transaction: transaction.clone(),
    });
    if mode == SettleMode::LostAnswer {
        return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "lost").into_response();
    }
    Json(
        json!({"success": true, "transaction": transaction, "network": checked.network,
        "payer": checked.payer}),
    )
    .into_response()
}

struct Checked {
    payer: String,
    nonce: String,
    value: String,
    network: String,
}

/// The facilitator's own check of a payment against its requirements.
fn check(body: &Value) -> Result<Checked, String> {
    let version = body["x402Version"].as_u64().ok_or("missing x402Version")?;
    let requirements = &body["paymentRequirements"];
    let payment = &body["paymentPayload"];
    let (network, amount) = match version {
        1 => (
            requirements["network"].as_str().unwrap_or_default(),
            requirements["maxAmountRequired"]
                .as_str()
                .unwrap_or_default(),
        ),
        _ => (
            requirements["network"].as_str().unwrap_or_default(),
            requirements["amount"].as_str().unwrap_or_default(),
        ),
    };
    let chain_id = NETWORKS
        .iter()
        .find(|(name, id)| *name == network || format!("eip155:{id}") == network)
        .map(|(_, id)| *id)
        .ok_or("invalid_network")?;
    let authorization = &payment["payload"]["authorization"];
    let field = |name: &str| authorization[name].as_str().unwrap_or_default().to_owned();
    let from: Address = field("from").parse().map_err(|_| "invalid_payload")?;
    let to: Address = field("to").parse().map_err(|_| "invalid_payload")?;
    let number = |name: &str| U256::from_str_radix(&field(name), 10).map_err(|_| "invalid_payload");
    let value = number("value")?;
    let valid_after = number("validAfter")?;
    let valid_before = number("validBefore")?;
    let nonce: B256 = field("nonce").parse().map_err(|_| "invalid_payload")?;
    let pay_to: Address = requirements["payTo"]
        .as_str()
        .unwrap_or_default()
        .parse()
        .map_err(|_| "invalid_requirements")?;
    let asset: Address = requirements["asset"]
        .as_str()
        .unwrap_or_default()
        .parse()
        .map_err(|_| "invalid_requirements")?;
    if to != pay_to {
        return Err("invalid_exact_evm_payload_recipient_mismatch".to_owned());
    }
    if value.to_string() != amount {
        return Err("invalid_exact_evm_payload_authorization_value".to_owned());
    }
    let now = U256::from(chrono::Utc::now().timestamp());
    if valid_before <= now {
        return Err("invalid_exact_evm_payload_authorization_valid_before".to_owned());
    }
    if valid_after > now {
        return Err("invalid_exact_evm_payload_authorization_valid_after".to_owned());
    }
    let domain = Eip712Domain::new(
        requirements["extra"]["name"]
            .as_str()
            .map(|name| name.to_owned().into()),
        requirements["extra"]["version"]
            .as_str()
            .map(|version| version.to_owned().into()),
        Some(U256::from(chain_id)),
        Some(asset),
        None,
    );
    let message = TransferWithAuthorization {
        from,
        to,
        value,
        validAfter: valid_after,
        validBefore: valid_before,
        nonce,
    };
    let signature_hex = payment["payload"]["signature"].as_str().unwrap_or_default();
    let bytes = hex::decode(signature_hex.trim_start_matches("0x"))
        .map_err(|_| "invalid_exact_evm_payload_signature")?;
    let signature =
        Signature::from_raw(&bytes).map_err(|_| "invalid_exact_evm_payload_signature")?;
    let signer = signature
        .recover_address_from_prehash(&message.eip712_signing_hash(&domain))
        .map_err(|_| "invalid_exact_evm_payload_signature")?;
    if signer != from {
        return Err("invalid_exact_evm_payload_signature".to_owned());
    }
    Ok(Checked {
        payer: format!("{from:#x}"),
        nonce: format!("{nonce:#x}"),
        value: value.to_string(),
        network: network.to_owned(),
    })
}

/// A throwaway EVM account that signs "exact" payments.
pub struct Payer {
    key: SigningKey,
    pub address: Address,
}

/// What a payer signs, all of it overridable so a test can get one term wrong.
#[derive(Debug, Clone)]
pub struct Authorization {
    pub to: String,
    pub value: String,
    pub valid_after: u64,
    pub valid_before: u64,
    pub nonce: B256,
    /// The EIP-712 domain signed under: name, version, chain id, token.
    pub domain: (String, String, u64, String),
}

impl Default for Payer {
    fn default() -> Self {
        Payer::new()
    }
}

impl Payer {
    pub fn new() -> Payer {
        let key = SigningKey::random(&mut rand::rngs::OsRng);
        let address = Address::from_public_key(key.verifying_key());
        Payer { key, address }
    }

    /// The authorization the v2 terms of a 402 ask for, valid for five minutes.
    pub fn authorization_for(&self, accepted: &Value) -> Authorization {
        let now = u64::try_from(chrono::Utc::now().timestamp()).unwrap_or(0);
        let chain_id = accepted["network"]
            .as_str()
            .and_then(|network| network.strip_prefix("eip155:"))
            .and_then(|id| id.parse().ok())
            .unwrap_or(84532);
        Authorization {
            to: accepted["payTo"].as_str().unwrap_or_default().to_owned(),
            value: accepted["amount"]
                .as_str()
                .or(accepted["maxAmountRequired"].as_str())
                .unwrap_or_default()
                .to_owned(),
            valid_after: 0,
            valid_before: now + 300,
            nonce: B256::from(rand::random::<[u8; 32]>()),
            domain: (
                accepted["extra"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                accepted["extra"]["version"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                chain_id,
                accepted["asset"].as_str().unwrap_or_default().to_owned(),
            ),
        }
    }

    /// The "exact" payload `{signature, authorization}` of `authorization`.
    pub fn sign(&self, authorization: &Authorization) -> Value {
        let (name, version, chain_id, asset) = &authorization.domain;
        let domain = Eip712Domain::new(
            Some(name.clone().into()),
            Some(version.clone().into()),
            Some(U256::from(*chain_id)),
            Some(asset.parse().expect("an asset address")),
            None,
        );
        let message = TransferWithAuthorization {
            from: self.address,
            to: authorization.to.parse().expect("a recipient address"),
            value: U256::from_str_radix(&authorization.value, 10).expect("a value"),
            validAfter: U256::from(authorization.valid_after),
            validBefore: U256::from(authorization.valid_before),
            nonce: authorization.nonce,
        };
        let hash = message.eip712_signing_hash(&domain);
        let (signature, recovery) = self
            .key
            .sign_prehash_recoverable(hash.as_slice())
            .expect("signing a prehash");
        let signature = Signature::from_signature_and_parity(signature, recovery.is_y_odd());
        let mut bytes = signature.as_bytes();
        // r ‖ s ‖ v with v as 27/28, as wallets send it.
        bytes[64] = 27 + u8::from(recovery.is_y_odd());
        json!({
            "signature": format!("0x{}", hex::encode(bytes)),
            "authorization": {
                "from": format!("{:#x}", self.address),
                "to": authorization.to,
                "value": authorization.value,
                "validAfter": authorization.valid_after.to_string(),
                "validBefore": authorization.valid_before.to_string(),
                "nonce": format!("{:#x}", authorization.nonce),
            }
        })
    }

    /// A v2 `PAYMENT-SIGNATURE` header value paying `accepted` (an entry of the v2
    /// terms' `accepts`) with `authorization`.
    pub fn header_v2(&self, accepted: &Value, authorization: &Authorization) -> String {
        encode(&self.payment_v2(accepted, authorization))
    }

    /// The v2 payment object (also MCP's `_meta["x402/payment"]`).
    pub fn payment_v2(&self, accepted: &Value, authorization: &Authorization) -> Value {
        json!({
            "x402Version": 2,
            "accepted": accepted,
            "payload": self.sign(authorization),
        })
    }

    /// A v1 `X-PAYMENT` header value paying `requirement` (an entry of the v1 body's
    /// `accepts`).
    pub fn header_v1(&self, requirement: &Value, authorization: &Authorization) -> String {
        encode(&json!({
            "x402Version": 1,
            "scheme": "exact",
            "network": requirement["network"],
            "payload": self.sign(authorization),
        }))
    }
}

/// Base64 of a value's JSON, as x402 headers carry it.
pub fn encode(value: &Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(value.to_string())
}

/// The JSON inside a base64 header.
pub fn decode(text: &str) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64");
    serde_json::from_slice(&bytes).expect("JSON")
}
