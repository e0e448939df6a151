//! manabi's billing ledger: an append-only event store (SQLite or PostgreSQL) with
//! conditional appends, the Account aggregate that decides charges, credits and keys,
//! and the batching `Biller` the API charges calls through.

pub mod account;
pub mod api_key;
pub mod biller;
pub mod clock;
pub mod health;
pub mod operator;
pub mod repository;
pub mod store;
pub mod ticket;
pub mod unknown;

pub use account::{Account, ChargeRequest, Points, QuotaScope, Refusal};
pub use api_key::ApiKey;
pub use biller::{AuthError, Biller, BillerConfig, Caller, Receipt};
pub use clock::{Clock, ManualClock, SystemClock};
pub use store::{
    EventStore, ExpectedVersion, Lease, NewEvent, Position, Store, StoreError, StreamAppend,
    StreamName,
};
pub use ticket::ChargeTicket;
