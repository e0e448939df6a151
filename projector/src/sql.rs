//! The small SQL surface shared by both backends: `$n` placeholders and
//! `ON CONFLICT … DO UPDATE` read the same on SQLite and PostgreSQL, and values are only
//! integers and text, so one statement list serves both.

use std::borrow::Cow;

use manabi_ledger::Store;
use sqlx::{Postgres, Sqlite, Transaction};

/// A bound value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    OptText(Option<String>),
}

/// One statement with its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: Cow<'static, str>,
    pub values: Vec<Value>,
    /// The placeholders are bare `?`, bound in order (see [`multi_row`]).
    pub positional: bool,
}

impl Statement {
    pub fn new(sql: &'static str, values: Vec<Value>) -> Self {
        Statement {
            sql: Cow::Borrowed(sql),
            values,
            positional: false,
        }
    }

    /// The SQL as PostgreSQL wants it: bare `?` placeholders become `$1`, `$2`, …
    /// (our generated SQL has no `?` anywhere else).
    fn numbered(&self) -> Cow<'_, str> {
        if !self.positional {
            return Cow::Borrowed(&self.sql);
        }
        let mut sql = String::with_capacity(self.sql.len() + self.values.len() * 4);
        let mut n = 0;
        for c in self.sql.chars() {
            if c == '?' {
                n += 1;
                sql.push('$');
                sql.push_str(&n.to_string());
            } else {
                sql.push(c);
            }
        }
        Cow::Owned(sql)
    }
}

/// Rows per multi-row statement: far below both backends' bound-parameter limits
/// (32,766 on SQLite, 65,535 on PostgreSQL) for rows of up to 11 columns.
const ROWS_PER_STATEMENT_MAX: usize = 500;

/// `head VALUES (…), (…) tail` over `rows` of equal width, one statement per
/// [`ROWS_PER_STATEMENT_MAX`] rows. The placeholders are bare `?`: SQLite looks up every
/// named or numbered placeholder in a list, which makes a statement of thousands of
/// `$n` quadratic to prepare, while a bare `?` is simply the next one.
pub fn multi_row(head: &str, tail: &str, rows: Vec<Vec<Value>>) -> Vec<Statement> {
    let mut statements = Vec::new();
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let chunk: Vec<Vec<Value>> = rows.by_ref().take(ROWS_PER_STATEMENT_MAX).collect();
        let mut sql = String::with_capacity(head.len() + tail.len() + chunk.len() * 40);
        sql.push_str(head);
        sql.push_str(" VALUES ");
        let mut values = Vec::with_capacity(chunk.iter().map(Vec::len).sum());
        for (n, row) in chunk.into_iter().enumerate() {
            if n > 0 {
                sql.push_str(", ");
            }
            sql.push('(');
            for (column, value) in row.into_iter().enumerate() {
                if column > 0 {
                    sql.push_str(", ");
                }
                values.push(value);
                sql.push('?');
            }
            sql.push(')');
        }
        sql.push(' ');
        sql.push_str(tail);
        statements.push(Statement {
            sql: Cow::Owned(sql),
            values,
            positional: true,
        });
    }
    statements
}

/// A write transaction on either backend.
pub enum WriteTx {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

macro_rules! bind_all {
    ($query:expr, $values:expr) => {{
        let mut query = $query;
        for value in $values {
            query = match value {
                Value::Int(v) => query.bind(*v),
                Value::Text(v) => query.bind(v.as_str()),
                Value::OptText(v) => query.bind(v.as_deref()),
            };
        }
        query
    }};
}

/// Key for the PostgreSQL advisory lock that makes concurrent projectors take turns.
const PROJECTOR_LOCK_KEY: i64 = 0x6d61_6e61_6269_7072;

impl WriteTx {
    /// Begins a transaction that excludes every other projector until it ends.
    pub async fn begin_exclusive(store: &Store) -> Result<Self, sqlx::Error> {
        match store {
            // IMMEDIATE: the write lock is taken before the checkpoint is read.
            Store::Sqlite(s) => Ok(WriteTx::Sqlite(
                s.read_models_writer().begin_with("BEGIN IMMEDIATE").await?,
            )),
            Store::Postgres(s) => {
                let mut tx = s.pool().begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(PROJECTOR_LOCK_KEY)
                    .execute(&mut *tx)
                    .await?;
                Ok(WriteTx::Postgres(tx))
            }
        }
    }

    pub async fn execute(&mut self, statement: &Statement) -> Result<u64, sqlx::Error> {
        let done = match self {
            WriteTx::Sqlite(tx) => {
                let query = bind_all!(sqlx::query(&statement.sql), &statement.values);
                query.execute(&mut **tx).await?.rows_affected()
            }
            WriteTx::Postgres(tx) => {
                let sql = statement.numbered();
                let query = bind_all!(sqlx::query(&sql), &statement.values);
                query.execute(&mut **tx).await?.rows_affected()
            }
        };
        Ok(done)
    }

    /// Reads the checkpoint row inside this transaction.
    pub async fn checkpoint(&mut self) -> Result<(i64, i64), sqlx::Error> {
        const SQL: &str = "SELECT transaction_id, global_position FROM rm_checkpoint \
                           WHERE name = 'read_models'";
        match self {
            WriteTx::Sqlite(tx) => sqlx::query_as(SQL).fetch_one(&mut **tx).await,
            WriteTx::Postgres(tx) => sqlx::query_as(SQL).fetch_one(&mut **tx).await,
        }
    }

    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            WriteTx::Sqlite(tx) => tx.commit().await,
            WriteTx::Postgres(tx) => tx.commit().await,
        }
    }
}

/// Runs a read query returning rows of one tuple type on whichever backend `store` is.
macro_rules! fetch_all {
    ($store:expr, $row:ty, $sql:expr $(, $bind:expr)* $(,)?) => {
        match $store {
            manabi_ledger::Store::Sqlite(s) => {
                sqlx::query_as::<_, $row>($sql)$(.bind($bind))*.fetch_all(s.read_models_reader()).await
            }
            manabi_ledger::Store::Postgres(s) => {
                sqlx::query_as::<_, $row>($sql)$(.bind($bind))*.fetch_all(s.pool()).await
            }
        }
    };
}
pub(crate) use fetch_all;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_row_statements_split_and_number_in_order() {
        let rows: Vec<Vec<Value>> = (0..ROWS_PER_STATEMENT_MAX as i64 + 2)
            .map(|n| vec![Value::Int(n), Value::Text(format!("row {n}"))])
            .collect();
        let statements = multi_row("INSERT INTO t (a, b)", "ON CONFLICT DO NOTHING", rows);
        assert_eq!(statements.len(), 2);
        let last = &statements[1];
        assert_eq!(
            last.sql,
            "INSERT INTO t (a, b) VALUES (?, ?), (?, ?) ON CONFLICT DO NOTHING"
        );
        assert_eq!(
            last.numbered(),
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4) ON CONFLICT DO NOTHING"
        );
        assert_eq!(last.values[0], Value::Int(ROWS_PER_STATEMENT_MAX as i64));
        assert_eq!(statements[0].values.len(), 2 * ROWS_PER_STATEMENT_MAX);
        assert!(multi_row("INSERT INTO t (a)", "", Vec::new()).is_empty());
    }

    #[test]
    fn fixed_statements_keep_their_numbered_placeholders() {
        let statement = Statement::new("UPDATE t SET a = $2 WHERE b = $1", Vec::new());
        assert_eq!(statement.numbered(), "UPDATE t SET a = $2 WHERE b = $1");
    }
}
