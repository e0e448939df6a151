//! The promise behind "nothing was charged".
//!
//! A request that gives up (its deadline passed, its client went away) must never be
//! charged afterwards. A charge job and its request share one [`ChargeTicket`]; exactly
//! one of two things happens to it, decided by a compare-and-swap:
//! - the biller *claims* it when it puts the charge in a batch, and from then on the
//!   request waits for the commit's outcome instead of giving up; or
//! - the request *abandons* it first, and the biller then drops the charge unwritten.
//!
//! So an answer that says nothing was charged is only given after a successful abandon,
//! and stays true forever after.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

const OPEN: u8 = 0;
const CLAIMED: u8 = 1;
const ABANDONED: u8 = 2;

/// Shared by a request and the charge it asked for; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct ChargeTicket(Arc<AtomicU8>);

impl ChargeTicket {
    pub fn new() -> Self {
        ChargeTicket::default()
    }

    /// The biller's side: true when the charge may be written (now or on a retry of the
    /// same charge), false when the request has already given up.
    pub fn claim(&self) -> bool {
        match self
            .0
            .compare_exchange(OPEN, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(state) => state == CLAIMED,
        }
    }

    /// The request's side: true when no charge of this ticket will ever be written; false
    /// when the biller has claimed it, and the request must wait for the commit.
    pub fn abandon(&self) -> bool {
        match self
            .0
            .compare_exchange(OPEN, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(state) => state == ABANDONED,
        }
    }

    /// Whether the biller has claimed the charge (it is being, or has been, written).
    pub fn is_claimed(&self) -> bool {
        self.0.load(Ordering::Acquire) == CLAIMED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_ticket_cannot_be_abandoned() {
        let ticket = ChargeTicket::new();
        assert!(ticket.claim());
        assert!(ticket.claim(), "a retry of the same charge claims again");
        assert!(!ticket.abandon());
        assert!(ticket.is_claimed());
    }

    #[test]
    fn an_abandoned_ticket_cannot_be_claimed() {
        let ticket = ChargeTicket::new();
        assert!(ticket.abandon());
        assert!(ticket.abandon());
        assert!(!ticket.claim());
        assert!(!ticket.is_claimed());
    }

    #[test]
    fn exactly_one_side_wins_a_race() {
        for _ in 0..1_000 {
            let ticket = ChargeTicket::new();
            let other = ticket.clone();
            let claimer = std::thread::spawn(move || other.claim());
            let abandoned = ticket.abandon();
            let claimed = claimer.join().expect("claimer thread");
            assert!(
                claimed != abandoned,
                "claimed {claimed}, abandoned {abandoned}"
            );
        }
    }
}
