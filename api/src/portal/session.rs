//! Sign-in links, sessions and the account of an email address, all kept in the ledger
//! so every replica sees them and every sign-in is on record (a sign-in through an
//! OpenID Connect provider, `oidc.rs`, ends in the same account and session):
//! - a link is `SignInLinkIssued` on `portal-link-{sha256(secret)}`; using it appends
//!   `SignInLinkUsed` at version 1, so the optimistic append lets it sign in once only,
//!   even when two requests race on two servers;
//! - a session is `PortalSessionOpened` on `portal-session-{sha256(secret)}`, ended by
//!   `PortalSessionClosed`; the cookie holds the secret, the ledger only its digest;
//! - an address's account is `EmailBound` on `portal-email-{sha256(address)}`: the
//!   account an operator opened with that address if there is one (claimed on first
//!   sign-in), else one opened for it, atomically with the binding. The operator's
//!   account is looked for in the ledger's own `AccountOpened` events (the read model
//!   only for the part its checkpoint covers), so a sign-in racing the projector cannot
//!   miss it and bind the address to a new account for good.

use std::net::IpAddr;

use chrono::{DateTime, Duration, Utc};
use manabi_ledger::account::Account;
use manabi_ledger::operator::Email;
use manabi_ledger::store::{
    AppendCommand, AppendRejection, ExpectedVersion, NewEvent, StreamAppend,
};
use manabi_ledger::{EventStore, Position, Store, StreamName};
use manabi_schemas::events::{
    EmailBound, EventMetadata, LedgerEvent, PortalSessionClosed, PortalSessionOpened,
    SignInLinkIssued, SignInLinkUsed,
};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// How long a mailed link works.
pub const LINK_MINUTES: i64 = 15;
/// How long a session lasts without signing in again.
pub const SESSION_DAYS: i64 = 7;
/// Ledger events read at a time past the read models' checkpoint.
const TAIL_PAGE_EVENTS: u32 = 1_000;
/// Events past the checkpoint a sign-in reads at most before answering "retry": a
/// projector that far behind is down, and a guess would bind the address for good.
const TAIL_EVENTS_MAX: usize = 100_000;

/// A signed-in person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub account_id: Uuid,
    pub email: String,
    /// The form token of this session (derived from the cookie's secret).
    pub csrf: String,
    secret: String,
}

impl Session {
    /// Who the ledger records as having acted.
    pub fn actor(&self) -> String {
        format!("portal:{}", self.email)
    }

    pub fn secret(&self) -> &str {
        &self.secret
    }
}

/// Why a link does not sign anyone in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRefusal {
    Unknown,
    Expired,
    Used,
}

#[derive(Debug, thiserror::Error)]
#[error("the ledger is unavailable: {0}")]
pub struct LedgerDown(pub String);

pub(crate) fn down(error: impl std::fmt::Display) -> LedgerDown {
    LedgerDown(error.to_string())
}

/// 32 random bytes as hex: the secret of a link or a session.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// SHA-256 of the parts, each ended by a newline, as hex.
pub(super) fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

/// The stream of a link's secret.
pub fn link_stream(secret: &str) -> StreamName {
    StreamName::new(format!("portal-link-{}", digest(&["link", secret])))
}

fn session_stream(secret: &str) -> StreamName {
    StreamName::new(format!("portal-session-{}", digest(&["session", secret])))
}

fn email_stream(email: &str) -> StreamName {
    StreamName::new(format!(
        "portal-email-{}",
        digest(&["email", &email.to_lowercase()])
    ))
}

/// The form token of a session: nobody without the cookie's secret can compute it.
pub fn csrf_of(secret: &str) -> String {
    digest(&["csrf", secret])
}

/// Who the ledger records as asking for a link: nobody is signed in yet, so the client.
fn client_actor(client: IpAddr) -> String {
    format!("client:{client}")
}

fn event(event: LedgerEvent, actor: Option<String>, at: DateTime<Utc>) -> NewEvent {
    let metadata = EventMetadata {
        actor,
        ..EventMetadata::default()
    };
    NewEvent::new(event, metadata, at)
}

/// Records a new link for `email`, asked for by `client` (the address the sign-in limit
/// counts); the secret goes in the mail only.
pub async fn issue_link(
    store: &Store,
    email: &Email,
    client: IpAddr,
) -> Result<String, LedgerDown> {
    let secret = new_secret();
    let now = Utc::now();
    let issued = LedgerEvent::SignInLinkIssued(SignInLinkIssued {
        email: email.as_str().to_owned(),
        expires_at: now + Duration::minutes(LINK_MINUTES),
    });
    let command = AppendCommand::single(
        link_stream(&secret),
        ExpectedVersion::NoStream,
        vec![event(issued, Some(client_actor(client)), now)],
    );
    store.append(command).await.map_err(down)?.map_err(down)?;
    Ok(secret)
}

/// The address a link was sent to, if it may still be used.
pub async fn check_link(
    store: &Store,
    secret: &str,
) -> Result<Result<String, LinkRefusal>, LedgerDown> {
    let events = store
        .read_stream(&link_stream(secret), 0, 2)
        .await
        .map_err(down)?;
    let Some(LedgerEvent::SignInLinkIssued(issued)) = events.first().map(|e| e.event.clone())
    else {
        return Ok(Err(LinkRefusal::Unknown));
    };
    if events.len() > 1 {
        return Ok(Err(LinkRefusal::Used));
    }
    if issued.expires_at <= Utc::now() {
        return Ok(Err(LinkRefusal::Expired));
    }
    Ok(Ok(issued.email))
}

/// Uses the link: finds (or opens) the address's account, marks the link used, and
/// opens a fresh session. A link used a moment ago elsewhere is refused.
pub async fn sign_in(
    store: &Store,
    secret: &str,
) -> Result<Result<Session, LinkRefusal>, LedgerDown> {
    let email = match check_link(store, secret).await? {
        Ok(email) => email,
        Err(refusal) => return Ok(Err(refusal)),
    };
    let account_id = account_of(store, &email).await?;
    let used = LedgerEvent::SignInLinkUsed(SignInLinkUsed { account_id });
    let command = AppendCommand::single(
        link_stream(secret),
        ExpectedVersion::Exact(0),
        vec![event(used, Some(format!("portal:{email}")), Utc::now())],
    );
    match store.append(command).await.map_err(down)? {
        Ok(_) => {}
        Err(AppendRejection::WrongVersion { .. }) => return Ok(Err(LinkRefusal::Used)),
        Err(rejection) => return Err(down(rejection)),
    }
    let actor = format!("portal:{email}");
    open_session(store, account_id, &email, actor).await.map(Ok)
}

/// Signs in the holder of `email` as an OpenID Connect `provider` (its issuer) vouched
/// for it: the address's account, found or opened exactly as for a link, and a fresh
/// session whose opening names the provider in its actor (`portal:<email> via <issuer>`).
pub async fn sign_in_verified(
    store: &Store,
    email: &Email,
    provider: &str,
) -> Result<Session, LedgerDown> {
    let email = email.as_str();
    let account_id = account_of(store, email).await?;
    let actor = format!("portal:{email} via {provider}");
    open_session(store, account_id, email, actor).await
}

async fn open_session(
    store: &Store,
    account_id: Uuid,
    email: &str,
    actor: String,
) -> Result<Session, LedgerDown> {
    let secret = new_secret();
    let now = Utc::now();
    let opened = LedgerEvent::PortalSessionOpened(PortalSessionOpened {
        account_id,
        email: email.to_owned(),
        expires_at: now + Duration::days(SESSION_DAYS),
    });
    let command = AppendCommand::single(
        session_stream(&secret),
        ExpectedVersion::NoStream,
        vec![event(opened, Some(actor), now)],
    );
    store.append(command).await.map_err(down)?.map_err(down)?;
    Ok(Session {
        account_id,
        email: email.to_owned(),
        csrf: csrf_of(&secret),
        secret,
    })
}

/// The live session of a cookie's secret.
pub async fn session_of(store: &Store, secret: &str) -> Result<Option<Session>, LedgerDown> {
    if secret.len() != 64 || !secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let events = store
        .read_stream(&session_stream(secret), 0, 2)
        .await
        .map_err(down)?;
    let Some(first) = events.first() else {
        return Ok(None);
    };
    let LedgerEvent::PortalSessionOpened(opened) = first.event.clone() else {
        return Ok(None);
    };
    if events.len() > 1 || opened.expires_at <= Utc::now() {
        return Ok(None);
    }
    // Ended by "sign out everywhere" since it was opened?
    let ended = store
        .read_stream(&email_stream(&opened.email), 1, 1_000)
        .await
        .map_err(down)?;
    let ended_after_opening = ended.iter().any(|recorded| match &recorded.event {
        LedgerEvent::PortalSessionsEnded(end) => end.at >= first.recorded_at,
        _ => false,
    });
    if ended_after_opening {
        return Ok(None);
    }
    Ok(Some(Session {
        account_id: opened.account_id,
        email: opened.email,
        csrf: csrf_of(secret),
        secret: secret.to_owned(),
    }))
}

/// Signs the session out.
pub async fn close(store: &Store, session: &Session) -> Result<(), LedgerDown> {
    let command = AppendCommand::single(
        session_stream(&session.secret),
        ExpectedVersion::Exact(0),
        vec![event(
            LedgerEvent::PortalSessionClosed(PortalSessionClosed {}),
            Some(session.actor()),
            Utc::now(),
        )],
    );
    // Closed already (another tab) is as good.
    store.append(command).await.map_err(down)?.ok();
    Ok(())
}

/// "Sign out everywhere": ends every session of the session's address, this one too.
pub async fn end_all(store: &Store, session: &Session) -> Result<(), LedgerDown> {
    let ended = LedgerEvent::PortalSessionsEnded(manabi_schemas::events::PortalSessionsEnded {
        at: Utc::now(),
    });
    let command = AppendCommand::single(
        email_stream(&session.email),
        ExpectedVersion::Any,
        vec![event(ended, Some(session.actor()), Utc::now())],
    );
    store.append(command).await.map_err(down)?.map_err(down)?;
    Ok(())
}

/// The account of `email`: the one bound to it, else the earliest an operator opened
/// with it (bound now), else a new one opened and bound in one append.
async fn account_of(store: &Store, email: &str) -> Result<Uuid, LedgerDown> {
    let stream = email_stream(email);
    for _ in 0..3 {
        if let Some(bound) = bound_account(store, &stream).await? {
            return Ok(bound);
        }
        let existing = opened_with(store, email).await?;
        let now = Utc::now();
        let actor = Some(format!("portal:{email}"));
        let mut appends = Vec::new();
        let account_id = match existing {
            Some(account_id) => account_id,
            None => {
                let account = Account::empty(Uuid::now_v7());
                let opened = account.decide_open(email).map_err(down)?;
                appends.push(StreamAppend {
                    stream: StreamName::account(account.id),
                    expected: ExpectedVersion::NoStream,
                    events: vec![event(opened, actor.clone(), now)],
                });
                account.id
            }
        };
        appends.push(StreamAppend {
            stream: stream.clone(),
            expected: ExpectedVersion::NoStream,
            events: vec![event(
                LedgerEvent::EmailBound(EmailBound { account_id }),
                actor,
                now,
            )],
        });
        match store
            .append(AppendCommand { appends })
            .await
            .map_err(down)?
        {
            Ok(_) => return Ok(account_id),
            // Bound by a sign-in a moment ago: read it again.
            Err(_) => continue,
        }
    }
    Err(LedgerDown(
        "the address could not be bound to an account".to_owned(),
    ))
}

async fn bound_account(store: &Store, stream: &StreamName) -> Result<Option<Uuid>, LedgerDown> {
    let events = store.read_stream(stream, 0, 1).await.map_err(down)?;
    Ok(events
        .into_iter()
        .find_map(|recorded| match recorded.event {
            LedgerEvent::EmailBound(bound) => Some(bound.account_id),
            _ => None,
        }))
}

/// The earliest account an operator opened with `email`, missing none: the read model
/// answers for the ledger up to its checkpoint (read before it, so the read model covers
/// at least that much), and the events after the checkpoint are read from the ledger.
async fn opened_with(store: &Store, email: &str) -> Result<Option<Uuid>, LedgerDown> {
    let covered = manabi_projector::checkpoint(store).await.map_err(down)?;
    let projected = manabi_projector::queries::account_by_email(store, email)
        .await
        .map_err(down)?;
    if projected.is_some() {
        return Ok(projected);
    }
    opened_after(store, email, covered).await
}

/// The first `AccountOpened` with `email` after `after` in the ledger's global order.
async fn opened_after(
    store: &Store,
    email: &str,
    mut after: Position,
) -> Result<Option<Uuid>, LedgerDown> {
    let address = email.to_lowercase();
    let mut read = 0;
    while read < TAIL_EVENTS_MAX {
        let page = store
            .read_all_after(after, TAIL_PAGE_EVENTS)
            .await
            .map_err(down)?;
        let Some(last) = page.last() else {
            return Ok(None);
        };
        after = last.position;
        read += page.len();
        let found = page.iter().find_map(|recorded| match &recorded.event {
            LedgerEvent::AccountOpened(opened) if opened.email.to_lowercase() == address => {
                Some(opened.account_id)
            }
            _ => None,
        });
        if found.is_some() {
            return Ok(found);
        }
    }
    Err(LedgerDown(format!(
        "the read models are more than {TAIL_EVENTS_MAX} events behind the ledger"
    )))
}
