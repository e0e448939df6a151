//! Operators' commands (the admin CLI): open accounts, credit points, issue and revoke
//! keys, set caps. Each loads the account, decides, and appends with the version it
//! decided on; a concurrent writer makes it catch up and decide again.

use chrono::{DateTime, Utc};
use manabi_schemas::events::{CapScope, CreditKind, EventMetadata, LedgerEvent};
use secrecy::SecretString;
use uuid::Uuid;

use crate::account::{Account, CommandError, Points};
use crate::api_key::ApiKey;
use crate::repository::{catch_up, load_account};
use crate::store::{
    AppendCommand, AppendRejection, ExpectedVersion, NewEvent, Store, StoreError, StreamName,
};

const COMMAND_ATTEMPTS_MAX: u32 = 16;

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("idempotency key {0} was already used for a different credit")]
    IdempotencyKeyReused(String),
    #[error("gave up after {COMMAND_ATTEMPTS_MAX} concurrent changes to the account")]
    TooMuchContention,
    #[error("invalid email address {0:?}")]
    InvalidEmail(String),
}

/// A plausible email address: one `@`, something on both sides, no whitespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(text: &str) -> Result<Self, OperatorError> {
        let text = text.trim();
        let valid = match text.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.contains('@')
                    && !text.chars().any(char::is_whitespace)
            }
            None => false,
        };
        if valid {
            Ok(Email(text.to_owned()))
        } else {
            Err(OperatorError::InvalidEmail(text.to_owned()))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The result of a top-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreditOutcome {
    pub event_id: Uuid,
    pub balance: i64,
    /// True when the idempotency key had already credited these points.
    pub duplicate: bool,
}

/// A newly issued key; the only time its secret exists outside the caller's hands.
#[derive(Debug)]
pub struct IssuedKey {
    pub key_id: Uuid,
    pub api_key: SecretString,
}

/// Runs operator commands against one store with one clock reading per command.
pub struct Operator<'a> {
    store: &'a Store,
    now: fn() -> DateTime<Utc>,
    /// Recorded on every event this operator appends (`portal:<email>`, …).
    actor: Option<String>,
}

impl<'a> Operator<'a> {
    pub fn new(store: &'a Store) -> Self {
        Operator {
            store,
            now: Utc::now,
            actor: None,
        }
    }

    /// An operator whose events record who took the action.
    pub fn acting_as(mut self, actor: impl Into<String>) -> Self {
        self.actor = Some(actor.into());
        self
    }

    fn metadata(&self) -> EventMetadata {
        EventMetadata {
            actor: self.actor.clone(),
            ..EventMetadata::default()
        }
    }

    pub async fn open_account(&self, email: &Email) -> Result<Uuid, OperatorError> {
        let account = Account::empty(Uuid::now_v7());
        let event = account.decide_open(&email.0)?;
        let command = AppendCommand::single(
            StreamName::account(account.id),
            ExpectedVersion::NoStream,
            vec![NewEvent::new(event, self.metadata(), (self.now)())],
        );
        match self.store.append(command).await? {
            Ok(_) => Ok(account.id),
            // A fresh UUIDv7 cannot collide; report it rather than guess.
            Err(_) => Err(CommandError::AccountExists(account.id).into()),
        }
    }

    pub async fn credit(
        &self,
        account_id: Uuid,
        kind: CreditKind,
        points: Points,
        idempotency_key: &str,
    ) -> Result<CreditOutcome, OperatorError> {
        let decide = |account: &Account| account.decide_credit(kind, points, idempotency_key);
        match self.execute(account_id, decide).await {
            Ok((account, event_id)) => Ok(CreditOutcome {
                event_id,
                balance: account.balance,
                duplicate: false,
            }),
            Err(ExecuteError::Duplicate(existing)) => {
                let same = existing.stream == StreamName::account(account_id)
                    && matches!(&existing.event, LedgerEvent::PointsCredited(p)
                        if p.kind == kind && p.points == points.get());
                if !same {
                    return Err(OperatorError::IdempotencyKeyReused(
                        idempotency_key.to_owned(),
                    ));
                }
                let account = load_account(self.store, account_id).await?;
                Ok(CreditOutcome {
                    event_id: existing.id,
                    balance: account.balance,
                    duplicate: true,
                })
            }
            Err(ExecuteError::Operator(error)) => Err(error),
        }
    }

    pub async fn issue_key(
        &self,
        account_id: Uuid,
        name: Option<String>,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<IssuedKey, OperatorError> {
        let key = ApiKey::generate(account_id);
        let decide = |account: &Account| account.decide_issue_key(&key, name.clone(), expires_at);
        self.execute(account_id, decide)
            .await
            .map_err(ExecuteError::into_operator)?;
        Ok(IssuedKey {
            key_id: key.key_id,
            api_key: key.reveal(),
        })
    }

    /// Revokes a key found by its id alone.
    pub async fn revoke_key(&self, key_id: Uuid) -> Result<Uuid, OperatorError> {
        let stream = self.store_key_stream(key_id).await?;
        let account_id = stream
            .account_id()
            .ok_or(CommandError::KeyNotFound(key_id))?;
        let decide = |account: &Account| account.decide_revoke(key_id);
        self.execute(account_id, decide)
            .await
            .map_err(ExecuteError::into_operator)?;
        Ok(account_id)
    }

    pub async fn set_daily_cap(
        &self,
        account_id: Uuid,
        key_id: Option<Uuid>,
        daily_calls: u32,
    ) -> Result<(), OperatorError> {
        let scope = match key_id {
            Some(key_id) => CapScope::Key { key_id },
            None => CapScope::Account,
        };
        let decide = |account: &Account| account.decide_cap(scope, daily_calls);
        self.execute(account_id, decide)
            .await
            .map_err(ExecuteError::into_operator)?;
        Ok(())
    }

    async fn store_key_stream(&self, key_id: Uuid) -> Result<StreamName, OperatorError> {
        use crate::store::EventStore;
        self.store
            .find_key_stream(key_id)
            .await?
            .ok_or(OperatorError::Command(CommandError::KeyNotFound(key_id)))
    }

    /// Load, decide, append with `Exact(version)`; on a conflict catch up and repeat.
    async fn execute(
        &self,
        account_id: Uuid,
        decide: impl Fn(&Account) -> Result<LedgerEvent, CommandError>,
    ) -> Result<(Account, Uuid), ExecuteError> {
        let mut account = load_account(self.store, account_id)
            .await
            .map_err(OperatorError::from)?;
        for _ in 0..COMMAND_ATTEMPTS_MAX {
            let event = decide(&account).map_err(OperatorError::from)?;
            let new_event = NewEvent::new(event.clone(), self.metadata(), (self.now)());
            let event_id = new_event.id;
            let command = AppendCommand::single(
                StreamName::account(account_id),
                ExpectedVersion::Exact(account.version),
                vec![new_event],
            );
            match self
                .store
                .append(command)
                .await
                .map_err(OperatorError::from)?
            {
                Ok(_) => {
                    account.apply(&event, account.version + 1);
                    return Ok((account, event_id));
                }
                Err(AppendRejection::DuplicateIdempotencyKey { existing, .. }) => {
                    return Err(ExecuteError::Duplicate(existing));
                }
                Err(_) => {
                    catch_up(self.store, &mut account)
                        .await
                        .map_err(OperatorError::from)?;
                }
            }
        }
        Err(OperatorError::TooMuchContention.into())
    }
}

enum ExecuteError {
    Operator(OperatorError),
    Duplicate(Box<crate::store::RecordedEvent>),
}

impl From<OperatorError> for ExecuteError {
    fn from(error: OperatorError) -> Self {
        ExecuteError::Operator(error)
    }
}

impl ExecuteError {
    fn into_operator(self) -> OperatorError {
        match self {
            ExecuteError::Operator(error) => error,
            // Only credits carry idempotency keys.
            ExecuteError::Duplicate(existing) => {
                OperatorError::IdempotencyKeyReused(existing.id.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_parsed() {
        assert!(Email::parse(" a@example.com ").is_ok());
        for bad in [
            "",
            "a",
            "@example.com",
            "a@b",
            "a b@example.com",
            "a@b@c.com",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad}");
        }
    }
}
