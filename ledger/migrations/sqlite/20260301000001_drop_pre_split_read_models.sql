-- Read models used to live in the ledger's file; they now have their own file beside it
-- (`<ledger>.read-models.sqlite`), rebuilt there by the projector from the events. The
-- old copies in this file are never read again: drop them to give their pages back.
DROP TABLE IF EXISTS rm_checkpoint;
DROP TABLE IF EXISTS rm_accounts;
DROP TABLE IF EXISTS rm_api_keys;
DROP TABLE IF EXISTS rm_usage_key;
DROP TABLE IF EXISTS rm_usage_account;
DROP TABLE IF EXISTS rm_charges;
DROP TABLE IF EXISTS rm_credits;
DROP TABLE IF EXISTS rm_statements;
