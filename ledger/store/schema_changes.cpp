#include "ledger/store/schema_history.hpp"

namespace corridor {

// Long on purpose: the history of the schema is data, one entry per migration, read in the
// order it applies; cut into functions it would be a list read in pieces.
std::vector<migration> schema_change_migrations() {
    return {
        {10,
         "uma invitations",
         {
             // The code is the invitation's name in its URL: random, unguessable, and unique across
             // every platform (the primary key), so it can be looked up without a tenant and the
             // owner checked afterwards. EXPIRED is not stored: a PENDING row past expires_at_ms
             // reads as EXPIRED, and every change is a conditional update that refuses it.
             R"(CREATE TABLE invitations (
                code TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                inviter_customer_id TEXT NOT NULL REFERENCES customers(id),
                inviter_uma TEXT NOT NULL,
                first_name TEXT,
                amount_to_send BIGINT,
                currency TEXT,
                status TEXT NOT NULL,
                invitee_uma TEXT,
                expires_at_ms BIGINT,
                claimed_at_ms BIGINT,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX invitations_by_tenant ON invitations (platform_id, environment, "
             "created_at_ms)",
         }},
        {11,
         "uma receiver lookups",
         {
             // What a sender learnt about an UMA receiver: the verified LNURLP response and the
             // receiver's keys, kept as received JSON so a quote can make the pay request the
             // lookup promised (callback, currencies, requested payer data, encryption key).
             R"(CREATE TABLE uma_lookups (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                sender_customer_id TEXT NOT NULL REFERENCES customers(id),
                receiver_uma_address TEXT NOT NULL,
                uma_version TEXT NOT NULL,
                lnurlp_response TEXT NOT NULL,
                receiver_keys TEXT NOT NULL,
                sending_currency TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL))",
         }},
        {13,
         "uma receipts",
         {
             // The BOLT #11 invoice of each incoming UMA payment: paying it (payment_hash) is
             // what settles the INCOMING transaction once the platform approved it.
             R"(CREATE TABLE uma_invoices (
                payment_hash TEXT PRIMARY KEY,
                transaction_id TEXT NOT NULL UNIQUE,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                invoice TEXT NOT NULL,
                amount_msats BIGINT NOT NULL,
                state TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                paid_at_ms BIGINT NOT NULL))",
             "CREATE INDEX uma_invoices_by_state ON uma_invoices (state, paid_at_ms)",
         }},
        {14,
         "uma payments sent",
         {
             // The pay request a quote to an UMA address made, one per quote: the receiver's
             // invoice (what the payout pays, payout_sats held for it), its conversion, and where
             // the receiver wants the post-transaction callback.
             R"(CREATE TABLE uma_payments (
                quote_id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                lookup_id TEXT NOT NULL,
                receiver_uma_address TEXT NOT NULL,
                payee_identifier TEXT NOT NULL,
                uma_version TEXT NOT NULL,
                vasp_domain TEXT NOT NULL,
                invoice TEXT NOT NULL,
                payment_hash TEXT NOT NULL,
                amount_msats BIGINT NOT NULL,
                payout_sats BIGINT NOT NULL,
                invoice_expires_at_ms BIGINT NOT NULL,
                receiver_multiplier TEXT NOT NULL,
                receiver_fee_msats BIGINT NOT NULL,
                utxo_callback TEXT NOT NULL,
                payee_data TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL))",
             "CREATE INDEX uma_payments_by_hash ON uma_payments (payment_hash)",
             // Post-transaction callbacks owed to receivers, written with the completion of their
             // payment and sent by a background worker, at least once; next_attempt_at_ms doubles
             // as the lease of the worker sending it.
             R"(CREATE TABLE uma_post_transactions (
                transaction_id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                quote_id TEXT NOT NULL,
                url TEXT NOT NULL,
                vasp_domain TEXT NOT NULL,
                amount_msats BIGINT NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at_ms BIGINT NOT NULL,
                last_error TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX uma_post_transactions_due ON uma_post_transactions (state, "
             "next_attempt_at_ms)",
         }},
        {15,
         "money arriving through rails",
         {
             // What rails report arriving without the host starting it (rail ABI 1.2): a paid
             // invoice, a transfer quoting a funding reference. One row per (rail, rail_reference),
             // however often it is reported, so it is routed once. platform_id is '' until it is
             // routed to a tenant (an unmatched arrival belongs to nobody); routed_to names the
             // account, quote or registered receiver that took it.
             R"(CREATE TABLE rail_incoming_payments (
                rail TEXT NOT NULL,
                rail_reference TEXT NOT NULL,
                environment TEXT NOT NULL,
                match_key TEXT NOT NULL,
                reference TEXT NOT NULL,
                currency TEXT NOT NULL,
                amount_minor BIGINT NOT NULL,
                amount_milli_minor BIGINT NOT NULL,
                received_at_ms BIGINT NOT NULL,
                rail_message TEXT NOT NULL,
                status TEXT NOT NULL,
                platform_id TEXT NOT NULL,
                routed_to TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                outcome TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                routed_at_ms BIGINT NOT NULL,
                PRIMARY KEY (rail, rail_reference)))",
             "CREATE INDEX rail_incoming_by_status ON rail_incoming_payments (status, "
             "created_at_ms)",
             "CREATE INDEX rail_incoming_by_match_key ON rail_incoming_payments (match_key)",
         }},
        {16,
         "rail operations remember who handed them to a rail",
         {
             // rail_node: the process (by its rails data folder) whose rail plugin was given the
             // operation; only that node initiates it again, because only its plugin's state knows
             // it. '' = no rail holds it (any process may claim it). rail_epoch: that process's
             // run; an open operation of this node from an earlier run is initiated again after a
             // restart, so a plugin that lost it in memory picks it up again as a retry.
             "ALTER TABLE rail_operations ADD COLUMN rail_node TEXT NOT NULL DEFAULT ''",
             "ALTER TABLE rail_operations ADD COLUMN rail_epoch TEXT NOT NULL DEFAULT ''",
             "CREATE INDEX rail_operations_by_node ON rail_operations (rail_node, status)",
         }},
        {17,
         "ledger transfers keep no per-account indexes",
         {
             // No query looks transfers up by account (the audit reads the whole table), and an
             // account is never deleted nor its id changed, so no foreign-key check needs them
             // either. Each transfer wrote into both, at a page of its accounts' range that differs
             // from one payment to the next: dirty pages every group commit wrote to the log.
             "DROP INDEX ledger_transfers_debit",
             "DROP INDEX ledger_transfers_credit",
         }},
        {20,
         "one owner per UMA address across both environments",
         {
             // An address resolves at its domain to its one owner, whichever environment holds
             // it. Addresses that both environments already hold keep production's behaviour: the
             // sandbox customer is marked shadowed (it stays reachable through the sandbox's proxy
             // subdomain) and a note names it, so that the platform can change one of them.
             "ALTER TABLE customers ADD COLUMN uma_address_shadowed INTEGER NOT NULL DEFAULT 0",
             "UPDATE customers SET uma_address_shadowed = 1 WHERE environment = 'sandbox' AND "
             "is_deleted = 0 AND uma_address IN (SELECT uma_address FROM customers WHERE "
             "environment = 'production' AND is_deleted = 0)",
             "CREATE UNIQUE INDEX customers_uma_address_owner ON customers (uma_address) WHERE "
             "is_deleted = 0 AND uma_address_shadowed = 0",
             R"(CREATE TABLE IF NOT EXISTS schema_migration_notes (
                version INTEGER NOT NULL,
                note TEXT NOT NULL))",
             "INSERT INTO schema_migration_notes (version, note) SELECT 20, 'UMA address ' || "
             "uma_address || ' is held in both environments (sandbox customer ' || id || ' of "
             "platform ' || platform_id || '): it resolves to the production customer; change "
             "the address of one of them' FROM customers WHERE uma_address_shadowed = 1",
         }},
        {21,
         "hosted KYC links for people who are not customers yet",
         {
             // Completing such a link creates the customer with platform_customer_id; customer_id
             // then records which one.
             R"(CREATE TABLE kyc_onboarding_links (
                token_hash TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                platform_customer_id TEXT NOT NULL,
                redirect_uri TEXT,
                expires_at_ms BIGINT NOT NULL,
                used_at_ms BIGINT,
                customer_id TEXT,
                created_at_ms BIGINT NOT NULL))",
         }},
        {22,
         "kyc reviews keep the reason of an operator's decision",
         {
             // `corridor kyc approve|reject --reason TEXT`; NULL for the sandbox's decisions.
             "ALTER TABLE kyc_reviews ADD COLUMN decision_reason TEXT",
         }},
        {23,
         "webhook keys rotate with an overlap",
         {
             // A next key published ahead of the switch (`webhook-key rotate --next [--at]`), so
             // that receivers install it before it signs. Its private half is sealed exactly as
             // the current one; the replaced public key stays as previous, for the record.
             "ALTER TABLE webhook_keys ADD COLUMN next_private_key_pem TEXT",
             "ALTER TABLE webhook_keys ADD COLUMN next_public_key_pem TEXT",
             "ALTER TABLE webhook_keys ADD COLUMN next_created_at_ms BIGINT",
             "ALTER TABLE webhook_keys ADD COLUMN next_activate_at_ms BIGINT",
             "ALTER TABLE webhook_keys ADD COLUMN previous_public_key_pem TEXT",
             "ALTER TABLE webhook_keys ADD COLUMN previous_retired_at_ms BIGINT",
         }},
        {24,
         "ledger batch markers for commits whose outcome is unknown",
         {
             // On PostgreSQL each ledger batch inserts its marker in its own transaction; when the
             // connection drops during COMMIT the writer reconnects and looks the marker up. The
             // lookup inserts the id itself (fenced = 1), which waits for the batch's transaction
             // to end: a row with fenced = 0 means the batch committed, a row with fenced = 1 that
             // it never will. Pruned by age. Unused on SQLite (a local file has no lost COMMIT).
             R"(CREATE TABLE ledger_batches (
                id BIGINT PRIMARY KEY,
                committed_at_ms BIGINT NOT NULL,
                fenced INTEGER NOT NULL DEFAULT 0))",
             "CREATE INDEX ledger_batches_age ON ledger_batches (committed_at_ms)",
         }},
        {25,
         "platform dashboard users, setup links, sessions, settings and audit log",
         {
             // One e-mail signs in to one platform: the sign-in form asks for nothing else.
             R"(CREATE TABLE dashboard_users (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                email TEXT NOT NULL UNIQUE,
                role TEXT NOT NULL,
                password_hash TEXT,
                is_disabled INTEGER NOT NULL,
                totp_secret TEXT,
                totp_last_step BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX dashboard_users_platform ON dashboard_users (platform_id, "
             "created_at_ms)",
             // Only hashes of the setup tokens and session ids are kept.
             R"(CREATE TABLE dashboard_setup_links (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES dashboard_users(id),
                expires_at_ms BIGINT NOT NULL,
                used_at_ms BIGINT,
                created_at_ms BIGINT NOT NULL))",
             R"(CREATE TABLE dashboard_sessions (
                id_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES dashboard_users(id),
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                csrf_token TEXT NOT NULL,
                second_factor_pending INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL,
                last_seen_ms BIGINT NOT NULL,
                ended_at_ms BIGINT))",
             "CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id)",
             R"(CREATE TABLE dashboard_settings (
                platform_id TEXT PRIMARY KEY REFERENCES platforms(id),
                totp_required INTEGER NOT NULL))",
             R"(CREATE TABLE dashboard_audit (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                email TEXT NOT NULL,
                action TEXT NOT NULL,
                detail TEXT NOT NULL,
                remote_address TEXT NOT NULL,
                at_ms BIGINT NOT NULL))",
             "CREATE INDEX dashboard_audit_platform ON dashboard_audit (platform_id, at_ms)",
         }},
        {30,
         "uma keys rotate with an overlap",
         {
             // A next key pair per purpose, published ahead of the switch (`uma-key rotate
             // --next [--at]`) through the expiration of /.well-known/lnurlpubkey, and the
             // replaced pair kept after it: the previous encryption key still decrypts travel-rule
             // data senders encrypted before they refetched (uma.previous_key_overlap_seconds).
             // Private halves are sealed exactly as the current one.
             "ALTER TABLE uma_keys ADD COLUMN next_private_key TEXT",
             "ALTER TABLE uma_keys ADD COLUMN next_certificate TEXT",
             "ALTER TABLE uma_keys ADD COLUMN next_created_at_ms BIGINT",
             "ALTER TABLE uma_keys ADD COLUMN next_activate_at_ms BIGINT",
             "ALTER TABLE uma_keys ADD COLUMN previous_private_key TEXT",
             "ALTER TABLE uma_keys ADD COLUMN previous_certificate TEXT",
             "ALTER TABLE uma_keys ADD COLUMN previous_retired_at_ms BIGINT",
         }},
        {31,
         "idempotency keys by age",
         {
             // The hourly prune (DELETE ... WHERE created_at_ms < cutoff) runs on the ledger
             // writer: without this index it reads the whole table, every stored response of the
             // retention window, while payments wait for the writer's commit.
             "CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at_ms)",
         }},
        {32,
         "webhook payloads stored compressed",
         {
             // No change of schema: from this version outbox_events.payload may hold a compressed
             // payload ("z1:" and base64, ledger/store/event_payloads.hpp) that an older binary
             // would send as it is; the version stops such a binary at start-up. Rows stored before
             // stay JSON, which this binary reads as they are, until the retention prunes them.
         }},
        {33,
         "indexes hold only the rows their queries look for",
         {
             // No query looks transactions up by quote (a quote leads to its transaction through
             // quotes.transaction_id): the index only cost every payment two entries.
             "DROP INDEX transactions_by_quote",
             // The expiry sweep reads PENDING quotes only (status = 'PENDING' is in its text, so
             // both databases use a partial index); finished quotes, nearly all of them, leave
             // the index.
             "DROP INDEX quotes_pending_expiry",
             "CREATE INDEX quotes_pending_expiry ON quotes (expires_at_ms) WHERE status = "
             "'PENDING'",
         }},
        {34,
         "a customer's accounts indexed by their owner first",
         {
             // The unique index led with the columns every account of a tenant shares (platform,
             // environment, kind): a tenant's customer accounts all went inside its range, ahead
             // of its PLATFORM and service accounts and never at the index's right end, so
             // PostgreSQL split the pages they filled in halves that stayed half empty (47% full
             // after a bulk import: twice the pages and page splits), and every comparison on the
             // way read three equal columns before the owner. Led by the owner (a customer's id,
             // which grows with time as every id does), a new customer's accounts go to the right
             // end, pages fill, and comparisons mostly end at the first column: about 1.7 us less
             // of PostgreSQL's CPU per account inserted. Same columns, so the same uniqueness and
             // ON CONFLICT target; lookups name every column, and listing one customer's accounts
             // now has the index's prefix.
             "DROP INDEX ledger_accounts_owner",
             "CREATE UNIQUE INDEX ledger_accounts_owner ON ledger_accounts (owner_id, currency, "
             "kind, platform_id, environment)",
         }},
        {37,
         "platform checks of customers and accounts once per statement on PostgreSQL",
         {
             // PostgreSQL checks a foreign key once per inserted row, each check a query of its
             // own (about 4 us): a bulk import writes a customer and one account per currency
             // (eight rows per customer with the default currencies), and these checks of one
             // platform, the same one for every row, took 15-20% of PostgreSQL's CPU in an
             // import. Platform ids never change and no code path deletes a platform, so nothing
             // is lost by checking once per statement: a statement-level trigger locks the
             // distinct platforms its rows name (FOR KEY SHARE, as the foreign key's check does,
             // so no platform disappears before the transaction ends) and refuses the statement
             // if one is missing; a row trigger checks a changed platform_id; and a platform that
             // customers or accounts still name cannot be deleted or renamed. Same error code
             // (23503) and the foreign key's name in the message. SQLite keeps its foreign keys:
             // a check there is one index probe in the same library call, and dropping one
             // would mean rebuilding the table.
             "postgresql: CREATE FUNCTION corridor_rows_name_platforms() RETURNS trigger "
             "LANGUAGE plpgsql AS $$ BEGIN "
             "PERFORM 1 FROM platforms WHERE id IN (SELECT DISTINCT platform_id FROM new_rows) "
             "FOR KEY SHARE; "
             "IF EXISTS (SELECT 1 FROM (SELECT DISTINCT platform_id FROM new_rows) AS named WHERE "
             "NOT EXISTS (SELECT 1 FROM platforms WHERE platforms.id = named.platform_id)) THEN "
             "RAISE EXCEPTION 'insert or update on table \"%\" violates foreign key constraint "
             "\"%_platform_id_fkey\"', TG_TABLE_NAME, TG_TABLE_NAME USING ERRCODE = "
             "'foreign_key_violation'; "
             "END IF; RETURN NULL; END $$",
             "postgresql: CREATE FUNCTION corridor_row_names_platform() RETURNS trigger "
             "LANGUAGE plpgsql AS $$ BEGIN "
             "PERFORM 1 FROM platforms WHERE id = NEW.platform_id FOR KEY SHARE; "
             "IF NOT FOUND THEN "
             "RAISE EXCEPTION 'insert or update on table \"%\" violates foreign key constraint "
             "\"%_platform_id_fkey\"', TG_TABLE_NAME, TG_TABLE_NAME USING ERRCODE = "
             "'foreign_key_violation'; "
             "END IF; RETURN NULL; END $$",
             "postgresql: CREATE FUNCTION corridor_platform_unnamed() RETURNS trigger "
             "LANGUAGE plpgsql AS $$ BEGIN "
             "IF EXISTS (SELECT 1 FROM customers WHERE platform_id = OLD.id) OR "
             "EXISTS (SELECT 1 FROM ledger_accounts WHERE platform_id = OLD.id) THEN "
             "RAISE EXCEPTION 'update or delete on table \"platforms\" violates foreign key "
             "constraint on table \"customers\" or \"ledger_accounts\"' USING ERRCODE = "
             "'foreign_key_violation'; "
             "END IF; RETURN NULL; END $$",
             "postgresql: ALTER TABLE customers DROP CONSTRAINT customers_platform_id_fkey",
             "postgresql: ALTER TABLE ledger_accounts DROP CONSTRAINT "
             "ledger_accounts_platform_id_fkey",
             "postgresql: CREATE TRIGGER customers_platform_check AFTER INSERT ON customers "
             "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "
             "corridor_rows_name_platforms()",
             "postgresql: CREATE TRIGGER ledger_accounts_platform_check AFTER INSERT ON "
             "ledger_accounts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE "
             "FUNCTION corridor_rows_name_platforms()",
             // Fires only for an UPDATE that sets platform_id (none does): the writer's balance
             // updates of ledger_accounts never run it.
             "postgresql: CREATE TRIGGER customers_platform_change AFTER UPDATE OF platform_id ON "
             "customers FOR EACH ROW WHEN (OLD.platform_id IS DISTINCT FROM NEW.platform_id) "
             "EXECUTE FUNCTION corridor_row_names_platform()",
             "postgresql: CREATE TRIGGER ledger_accounts_platform_change AFTER UPDATE OF "
             "platform_id ON ledger_accounts FOR EACH ROW WHEN (OLD.platform_id IS DISTINCT FROM "
             "NEW.platform_id) EXECUTE FUNCTION corridor_row_names_platform()",
             "postgresql: CREATE TRIGGER platforms_still_named AFTER DELETE ON platforms FOR EACH "
             "ROW EXECUTE FUNCTION corridor_platform_unnamed()",
             "postgresql: CREATE TRIGGER platforms_still_named_id AFTER UPDATE OF id ON platforms "
             "FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION "
             "corridor_platform_unnamed()",
         }},
        {38,
         "webhook payloads stored as bytes",
         {
             // A payload is the zstd frame's bytes (ledger/store/event_payloads.hpp), no longer
             // "z1:" and its base64, which made every stored payload a third larger (about 60
             // bytes an event, five events a payment). PostgreSQL's column becomes a BYTEA, every
             // row converted: base64 rows decoded to their frame, JSON rows (stored before
             // compression) to their UTF-8 bytes. SQLite needs no change of schema (a BLOB keeps
             // its bytes in a column of TEXT affinity) and has no base64 decoder in SQL: its
             // older rows stay as they were written, which this binary reads as before, until
             // the retention prunes them. The version also stops an older binary, which would
             // send the bytes as they are.
             "postgresql: ALTER TABLE outbox_events ALTER COLUMN payload TYPE BYTEA USING CASE "
             "WHEN payload LIKE 'z1:%' THEN decode(substr(payload, 4), 'base64') ELSE "
             "convert_to(payload, 'UTF8') END",
         }},
        {39,
         "ledger transfers carry no tenant columns",
         {
             // A transfer's tenant is its accounts' (the book posts only between accounts of the
             // caller's tenant, and the auditor checks that both accounts of every transfer
             // share one), and no query reads transfers by tenant: by transaction (the operator's
             // payment view) or all of them (the auditor). The two columns repeated about 60
             // bytes on each of a payment's three transfers. Existing rows keep everything else.
             // PostgreSQL only marks them dropped, so rows written before keep their bytes until
             // a VACUUM FULL, and every new row is narrower.
             "postgresql: ALTER TABLE ledger_transfers DROP COLUMN platform_id",
             "postgresql: ALTER TABLE ledger_transfers DROP COLUMN environment",
             // SQLite rebuilds the table, every row copied, as a WITHOUT ROWID table: the rows
             // are stored in the order of their primary key, so the id's separate index (about
             // 60 bytes a transfer) goes. No other index, trigger or foreign key names the table
             // (dropping it checks nothing), and its id is only ever appended (uuid v7), so its
             // pages fill as a rowid table's do.
             R"(sqlite: CREATE TABLE ledger_transfers_rebuilt (
                id TEXT PRIMARY KEY,
                debit_account_id TEXT NOT NULL REFERENCES ledger_accounts(id),
                credit_account_id TEXT NOT NULL REFERENCES ledger_accounts(id),
                amount BIGINT NOT NULL CHECK (amount > 0),
                currency TEXT NOT NULL,
                code TEXT NOT NULL,
                transaction_id TEXT,
                created_at_ms BIGINT NOT NULL,
                CHECK (debit_account_id <> credit_account_id)) WITHOUT ROWID)",
             "sqlite: INSERT INTO ledger_transfers_rebuilt (id, debit_account_id, "
             "credit_account_id, amount, currency, code, transaction_id, created_at_ms) SELECT id, "
             "debit_account_id, credit_account_id, amount, currency, code, transaction_id, "
             "created_at_ms FROM ledger_transfers",
             "sqlite: DROP TABLE ledger_transfers",
             "sqlite: ALTER TABLE ledger_transfers_rebuilt RENAME TO ledger_transfers",
         }},
        {40,
         "the webhook outbox's due index holds only events waiting to be sent",
         {
             // The index (state, next_attempt_at_ms) held every event, and nearly every event is
             // finished (delivered, given up or closed) until the retention deletes it: about 30
             // bytes an event on SQLite (PostgreSQL's B-tree deduplicates its many equal keys to
             // a few bytes), four events a payment. Claims read PENDING events only (state =
             // 'PENDING' is in their text, so both databases use a partial index); the
             // retention's prune, which walked the finished ones in this index, now walks the
             // primary key, whose ids sort by the time they were made (prune_finished_events).
             // Every row stays.
             "DROP INDEX outbox_events_due",
             "CREATE INDEX outbox_events_due ON outbox_events (next_attempt_at_ms) WHERE state = "
             "'PENDING'",
         }},
        {41,
         "SQLite's webhook outbox stored in the order of its ids",
         {
             // SQLite rebuilds the table, every row copied, as a WITHOUT ROWID table: the rows are
             // the primary key's b-tree, so the id's separate index (about 60 bytes an event)
             // goes. What made that a loss elsewhere does not apply here: event ids are made on
             // the thread that records the event and inserted in their order, so the rows go to
             // the b-tree's right end and its pages fill; the one secondary index, the partial
             // outbox_events_due, now carries the id instead of a rowid for the few PENDING events
             // alone. No foreign key, trigger or view names the table. PostgreSQL keeps its heap.
             R"(sqlite: CREATE TABLE outbox_events_rebuilt (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                type TEXT NOT NULL,
                payload TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                claim_token TEXT,
                purpose TEXT NOT NULL DEFAULT 'NOTIFY',
                first_attempt_at_ms BIGINT,
                finished_at_ms BIGINT) WITHOUT ROWID)",
             "sqlite: INSERT INTO outbox_events_rebuilt (id, platform_id, environment, type, "
             "payload, state, attempts, next_attempt_at_ms, created_at_ms, claim_token, purpose, "
             "first_attempt_at_ms, finished_at_ms) SELECT id, platform_id, environment, type, "
             "payload, state, attempts, next_attempt_at_ms, created_at_ms, claim_token, purpose, "
             "first_attempt_at_ms, finished_at_ms FROM outbox_events",
             "sqlite: DROP TABLE outbox_events",
             "sqlite: ALTER TABLE outbox_events_rebuilt RENAME TO outbox_events",
             "sqlite: CREATE INDEX outbox_events_due ON outbox_events (next_attempt_at_ms) WHERE "
             "state = 'PENDING'",
         }},
        {42,
         "accounts' uniqueness indexed without the columns an owner already settles",
         {
             // The unique index over (owner_id, currency, kind, platform_id, environment) held a
             // customer's id and then its tenant and kind, which the id alone settles (customer
             // ids are unique across tenants, and only customer accounts have an owner): about 70
             // of its 147 bytes an account, written for each of the seven accounts a new customer
             // gets (a bulk import's largest index by bytes, with ledger_accounts_by_tenant). Split
             // by what identifies an account: a customer's by (owner_id, currency), a service
             // account's (owner_id '') by its tenant, kind and currency. Same uniqueness, and
             // every lookup and ON CONFLICT target names its index's predicate (book.cpp).
             "DROP INDEX ledger_accounts_owner",
             "CREATE UNIQUE INDEX ledger_accounts_owner ON ledger_accounts (owner_id, currency) "
             "WHERE owner_id <> ''",
             "CREATE UNIQUE INDEX ledger_accounts_service ON ledger_accounts (platform_id, "
             "environment, kind, currency) WHERE owner_id = ''",
         }},
        {43,
         "each platform environment numbered by a small tenant key",
         {
             // The tenant (platform id and environment, about 60 bytes of text) is in every row
             // and index entry of the tables a payment writes; a number of one to four bytes
             // says the same. The key never changes and is never reused: PostgreSQL draws it
             // from the column's identity, SQLite's writer (one at a time) takes the next above
             // the largest (create_platform).
             "postgresql: ALTER TABLE platform_configs ADD COLUMN tenant_key INTEGER GENERATED BY "
             "DEFAULT AS IDENTITY",
             "sqlite: ALTER TABLE platform_configs ADD COLUMN tenant_key INTEGER",
             "sqlite: UPDATE platform_configs SET tenant_key = (SELECT COUNT(*) FROM "
             "platform_configs o WHERE o.rowid <= platform_configs.rowid)",
             "CREATE UNIQUE INDEX platform_configs_tenant_key ON platform_configs (tenant_key)",
         }},
        {45,
         "quotes and transactions name their tenant by its key",
         {
             // Every quote and transaction row, and its entry in the by-tenant index, carried the
             // tenant as text (a 51-byte platform id and the environment's name); its tenant key
             // (migration 43) says the same in one to four bytes. Readers filter by the key of
             // the caller's tenant or join platform_configs for a row's tenant. The key refers to
             // platform_configs as platform_id referred to platforms (the same one check per
             // row). A row whose tenant has no configuration stops the migration (NOT NULL).
             // PostgreSQL adds the column and drops the two: rows written before keep the dropped
             // columns' bytes until a VACUUM FULL (as migration 39); dropping platform_id drops
             // its foreign key and the by-tenant index, made again over the key.
             "postgresql: ALTER TABLE quotes ADD COLUMN tenant_key INTEGER",
             "postgresql: UPDATE quotes SET tenant_key = (SELECT c.tenant_key FROM "
             "platform_configs c WHERE c.platform_id = quotes.platform_id AND c.environment = "
             "quotes.environment)",
             "postgresql: ALTER TABLE quotes ALTER COLUMN tenant_key SET NOT NULL",
             "postgresql: DROP INDEX quotes_by_tenant",
             "postgresql: ALTER TABLE quotes DROP COLUMN platform_id",
             "postgresql: ALTER TABLE quotes DROP COLUMN environment",
             "postgresql: ALTER TABLE quotes ADD FOREIGN KEY (tenant_key) REFERENCES "
             "platform_configs (tenant_key)",
             "postgresql: ALTER TABLE transactions ADD COLUMN tenant_key INTEGER",
             "postgresql: UPDATE transactions SET tenant_key = (SELECT c.tenant_key FROM "
             "platform_configs c WHERE c.platform_id = transactions.platform_id AND "
             "c.environment = transactions.environment)",
             "postgresql: ALTER TABLE transactions ALTER COLUMN tenant_key SET NOT NULL",
             "postgresql: DROP INDEX transactions_by_tenant",
             "postgresql: ALTER TABLE transactions DROP COLUMN platform_id",
             "postgresql: ALTER TABLE transactions DROP COLUMN environment",
             "postgresql: ALTER TABLE transactions ADD FOREIGN KEY (tenant_key) REFERENCES "
             "platform_configs (tenant_key)",
             // SQLite rebuilds both tables, every row copied in id order. No trigger, view or
             // foreign key names them, and no code reads their rowid. Transactions become a
             // WITHOUT ROWID table (as migrations 39 and 41): the rows are the primary key's
             // b-tree, so the id's autoindex goes and the by-tenant index, which holds the id,
             // needs no rowid beside it. Quotes stay a rowid table: measured on 20,000 payments
             // rebuilt both ways, transactions take 1,067 -> 1,020 bytes a payment without a
             // rowid but quotes 590 -> 626: the rows live in an index b-tree, whose pages filled
             // less than a rowid table's appended ones (quote rows 456 -> 512 bytes), and the
             // quote's two other indexes (funding reference, expiry) would carry its 45-byte id
             // instead of a rowid, more than its autoindex saves.
             R"(sqlite: CREATE TABLE quotes_rebuilt (
                id TEXT PRIMARY KEY,
                tenant_key INTEGER NOT NULL REFERENCES platform_configs(tenant_key),
                status TEXT NOT NULL,
                source_type TEXT NOT NULL,
                source_account_id TEXT NOT NULL,
                source_customer_id TEXT NOT NULL,
                destination_type TEXT NOT NULL,
                destination_account_id TEXT NOT NULL,
                destination_customer_id TEXT NOT NULL,
                sending_currency TEXT NOT NULL,
                receiving_currency TEXT NOT NULL,
                locked_side TEXT NOT NULL,
                locked_amount BIGINT NOT NULL,
                total_sending BIGINT NOT NULL,
                net_sending BIGINT NOT NULL,
                total_receiving BIGINT NOT NULL,
                fees_included BIGINT NOT NULL,
                exchange_rate TEXT NOT NULL,
                counterparty_multiplier TEXT NOT NULL,
                service_multiplier TEXT NOT NULL,
                variable_fee_rate TEXT NOT NULL,
                counterparty_fixed_fee BIGINT NOT NULL,
                service_fixed_fee BIGINT NOT NULL,
                variable_fee_amount BIGINT NOT NULL,
                purpose_of_payment TEXT NOT NULL,
                description TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                funding_reference TEXT NOT NULL,
                payment_instructions TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                expires_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "sqlite: INSERT INTO quotes_rebuilt SELECT q.id, (SELECT c.tenant_key FROM "
             "platform_configs c WHERE c.platform_id = q.platform_id AND c.environment = "
             "q.environment), q.status, q.source_type, q.source_account_id, "
             "q.source_customer_id, q.destination_type, q.destination_account_id, "
             "q.destination_customer_id, q.sending_currency, q.receiving_currency, q.locked_side, "
             "q.locked_amount, q.total_sending, q.net_sending, q.total_receiving, "
             "q.fees_included, q.exchange_rate, q.counterparty_multiplier, q.service_multiplier, "
             "q.variable_fee_rate, q.counterparty_fixed_fee, q.service_fixed_fee, "
             "q.variable_fee_amount, q.purpose_of_payment, q.description, q.transaction_id, "
             "q.funding_reference, q.payment_instructions, q.created_at_ms, q.expires_at_ms, "
             "q.updated_at_ms FROM quotes q ORDER BY q.id",
             "sqlite: DROP TABLE quotes",
             "sqlite: ALTER TABLE quotes_rebuilt RENAME TO quotes",
             "sqlite: CREATE INDEX quotes_pending_expiry ON quotes (expires_at_ms) WHERE status = "
             "'PENDING'",
             "sqlite: CREATE UNIQUE INDEX quotes_funding_reference ON quotes (funding_reference)",
             R"(sqlite: CREATE TABLE transactions_rebuilt (
                id TEXT PRIMARY KEY,
                tenant_key INTEGER NOT NULL REFERENCES platform_configs(tenant_key),
                type TEXT NOT NULL,
                status TEXT NOT NULL,
                quote_id TEXT NOT NULL,
                customer_id TEXT NOT NULL,
                platform_customer_id TEXT NOT NULL,
                source_type TEXT NOT NULL,
                source_account_id TEXT NOT NULL,
                source_currency TEXT NOT NULL,
                destination_type TEXT NOT NULL,
                destination_account_id TEXT NOT NULL,
                destination_currency TEXT NOT NULL,
                sent_amount BIGINT NOT NULL,
                received_amount BIGINT NOT NULL,
                fees BIGINT NOT NULL,
                exchange_rate TEXT NOT NULL,
                rate_details TEXT NOT NULL,
                description TEXT NOT NULL,
                failure_reason TEXT NOT NULL,
                reference TEXT NOT NULL,
                refund TEXT NOT NULL,
                settled_at_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL) WITHOUT ROWID)",
             "sqlite: INSERT INTO transactions_rebuilt SELECT t.id, (SELECT c.tenant_key FROM "
             "platform_configs c WHERE c.platform_id = t.platform_id AND c.environment = "
             "t.environment), t.type, t.status, t.quote_id, t.customer_id, "
             "t.platform_customer_id, t.source_type, t.source_account_id, t.source_currency, "
             "t.destination_type, t.destination_account_id, t.destination_currency, "
             "t.sent_amount, t.received_amount, t.fees, t.exchange_rate, t.rate_details, "
             "t.description, t.failure_reason, t.reference, t.refund, t.settled_at_ms, "
             "t.created_at_ms, t.updated_at_ms FROM transactions t ORDER BY t.id",
             "sqlite: DROP TABLE transactions",
             "sqlite: ALTER TABLE transactions_rebuilt RENAME TO transactions",
             "CREATE INDEX quotes_by_tenant ON quotes (tenant_key, id)",
             "CREATE INDEX transactions_by_tenant ON transactions (tenant_key, id)",
         }},
    };
}

}  // namespace corridor
