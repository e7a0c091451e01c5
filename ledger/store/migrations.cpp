#include "ledger/store/migrations.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "ledger/base/assert.hpp"
#include "ledger/base/clock.hpp"
#include "ledger/store/database.hpp"

namespace corridor {
namespace {

struct migration {
    int version;
    const char* name;
    std::vector<const char*> statements;
};

// Append only: a released migration is never edited. Portable SQL for SQLite and PostgreSQL;
// times are integer milliseconds since the epoch, booleans 0/1, JSON documents as TEXT.
const std::vector<migration>& all_migrations() {
    static const std::vector<migration> migrations = {
        {1,
         "platforms, configuration, tokens, customers",
         {
             R"(CREATE TABLE platforms (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                is_regulated INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL))",
             R"(CREATE TABLE platform_configs (
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                id TEXT NOT NULL UNIQUE,
                uma_domain TEXT NOT NULL,
                proxy_uma_subdomain TEXT NOT NULL UNIQUE,
                webhook_endpoint TEXT,
                supported_currencies TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL,
                PRIMARY KEY (platform_id, environment)))",
             "CREATE UNIQUE INDEX platform_configs_uma_domain ON platform_configs (environment, "
             "uma_domain)",
             R"(CREATE TABLE tokens (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                name TEXT NOT NULL,
                permissions INTEGER NOT NULL,
                client_id TEXT NOT NULL UNIQUE,
                secret_hash TEXT NOT NULL,
                is_deleted INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX tokens_by_tenant ON tokens (platform_id, environment, id)",
             R"(CREATE TABLE customers (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                platform_customer_id TEXT NOT NULL,
                customer_type TEXT NOT NULL,
                uma_address TEXT NOT NULL,
                kyc_status TEXT NOT NULL,
                full_name TEXT,
                birth_date TEXT,
                nationality TEXT,
                address TEXT,
                business_info TEXT,
                beneficial_owners TEXT,
                is_deleted INTEGER NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX customers_by_tenant ON customers (platform_id, environment, id)",
             "CREATE UNIQUE INDEX customers_uma_address ON customers (environment, uma_address) "
             "WHERE is_deleted = 0",
             "CREATE UNIQUE INDEX customers_platform_customer_id ON customers (platform_id, "
             "environment, platform_customer_id) WHERE is_deleted = 0",
         }},
        {2,
         "double-entry ledger, quotes, transactions, outbox, idempotency keys",
         {
             // Internal accounts (CUSTOMER, PLATFORM) are liabilities of the service and may never
             // be overdrawn; service accounts (LIQUIDITY, FEES, SETTLEMENT) carry its positions.
             // owner_id is '' for accounts no customer owns (a NULL would escape the unique index).
             R"(CREATE TABLE ledger_accounts (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                kind TEXT NOT NULL,
                owner_id TEXT NOT NULL,
                currency TEXT NOT NULL,
                reference TEXT NOT NULL UNIQUE,
                must_not_overdraw INTEGER NOT NULL,
                debits_posted BIGINT NOT NULL CHECK (debits_posted >= 0),
                credits_posted BIGINT NOT NULL CHECK (credits_posted >= 0),
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL,
                CHECK (must_not_overdraw = 0 OR debits_posted <= credits_posted)))",
             "CREATE UNIQUE INDEX ledger_accounts_owner ON ledger_accounts (platform_id, "
             "environment, kind, owner_id, currency)",
             "CREATE INDEX ledger_accounts_by_tenant ON ledger_accounts (platform_id, environment, "
             "id)",
             R"(CREATE TABLE ledger_transfers (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                debit_account_id TEXT NOT NULL REFERENCES ledger_accounts(id),
                credit_account_id TEXT NOT NULL REFERENCES ledger_accounts(id),
                amount BIGINT NOT NULL CHECK (amount > 0),
                currency TEXT NOT NULL,
                code TEXT NOT NULL,
                transaction_id TEXT,
                created_at_ms BIGINT NOT NULL,
                CHECK (debit_account_id <> credit_account_id)))",
             "CREATE INDEX ledger_transfers_debit ON ledger_transfers (debit_account_id)",
             "CREATE INDEX ledger_transfers_credit ON ledger_transfers (credit_account_id)",
             R"(CREATE TABLE quotes (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
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
             "CREATE INDEX quotes_by_tenant ON quotes (platform_id, environment, id)",
             "CREATE INDEX quotes_pending_expiry ON quotes (status, expires_at_ms)",
             "CREATE UNIQUE INDEX quotes_funding_reference ON quotes (funding_reference)",
             R"(CREATE TABLE transactions (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
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
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX transactions_by_tenant ON transactions (platform_id, environment, id)",
             "CREATE INDEX transactions_by_quote ON transactions (quote_id)",
             R"(CREATE TABLE outbox_events (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                type TEXT NOT NULL,
                payload TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL))",
             "CREATE INDEX outbox_events_due ON outbox_events (state, next_attempt_at_ms)",
             R"(CREATE TABLE idempotency_keys (
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status INTEGER NOT NULL,
                response_body TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                PRIMARY KEY (platform_id, environment, idempotency_key)))",
         }},
        {3,
         "UMA domain claims",
         {
             // One row per domain decides, in the database, which platform owns it: two platforms
             // setting one domain at once (in either environment, from any process) cannot both
             // win.
             R"(CREATE TABLE uma_domain_claims (
                uma_domain TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id)))",
             "INSERT INTO uma_domain_claims (uma_domain, platform_id) SELECT DISTINCT uma_domain, "
             "platform_id FROM platform_configs",
         }},
        {4,
         "webhooks",
         {
             // A delivery is claimed by moving next_attempt_at_ms past its lease and stamping a
             // claim token; the attempt's result is written only under that token. A process that
             // dies mid-attempt leaves the row due again when the lease runs out.
             "ALTER TABLE outbox_events ADD COLUMN claim_token TEXT",
             // NOTIFY (retried for days), TEST (sent once), APPROVAL (the in-flow question of an
             // incoming payment in PENDING: sent once, its answer decides the payment).
             "ALTER TABLE outbox_events ADD COLUMN purpose TEXT NOT NULL DEFAULT 'NOTIFY'",
             "ALTER TABLE outbox_events ADD COLUMN first_attempt_at_ms BIGINT",
             "ALTER TABLE outbox_events ADD COLUMN finished_at_ms BIGINT",
             // One signing key pair per platform environment; the private key never leaves the
             // database except to sign.
             R"(CREATE TABLE webhook_keys (
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                private_key_pem TEXT NOT NULL,
                public_key_pem TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                PRIMARY KEY (platform_id, environment)))",
             R"(CREATE TABLE webhook_attempts (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                attempt INTEGER NOT NULL,
                url TEXT NOT NULL,
                attempted_at_ms BIGINT NOT NULL,
                latency_ms BIGINT NOT NULL,
                response_status INTEGER NOT NULL,
                outcome TEXT NOT NULL,
                error TEXT NOT NULL,
                response_excerpt TEXT NOT NULL,
                next_attempt_at_ms BIGINT NOT NULL))",
             "CREATE INDEX webhook_attempts_by_tenant ON webhook_attempts (platform_id, "
             "environment, id)",
             "CREATE INDEX webhook_attempts_by_event ON webhook_attempts (event_id)",
             R"(CREATE TABLE incoming_approvals (
                transaction_id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                state TEXT NOT NULL,
                event_id TEXT NOT NULL,
                sender_uma_address TEXT NOT NULL,
                counterparty_information TEXT NOT NULL,
                requested_fields TEXT NOT NULL,
                receiver_customer_info TEXT NOT NULL,
                required_fields TEXT NOT NULL,
                reason TEXT NOT NULL,
                deadline_at_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX incoming_approvals_due ON incoming_approvals (state, deadline_at_ms)",
         }},
        {5,
         "rail operations",
         {
             // One row per payout or pull driven through a rail plugin. Claimed by lease
             // (lease_until_ms) so any number of processes can drive them; closed by deadline.
             R"(CREATE TABLE rail_operations (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                rail TEXT NOT NULL,
                direction TEXT NOT NULL,
                status TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                internal_account_id TEXT NOT NULL,
                external_account_id TEXT NOT NULL,
                account_type TEXT NOT NULL,
                account_json TEXT NOT NULL,
                currency TEXT NOT NULL,
                amount BIGINT NOT NULL,
                description TEXT NOT NULL,
                rail_reference TEXT NOT NULL,
                rail_reason_code TEXT NOT NULL,
                failure_class TEXT NOT NULL,
                failure_reason TEXT NOT NULL,
                message TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                lease_until_ms BIGINT NOT NULL,
                deadline_at_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX rail_operations_due ON rail_operations (status, lease_until_ms)",
             "CREATE INDEX rail_operations_deadline ON rail_operations (status, deadline_at_ms)",
             "CREATE INDEX rail_operations_by_transaction ON rail_operations (transaction_id)",
         }},
        {6,
         "external accounts and bank links",
         {
             // customer_id is '' for the platform's own accounts (a NULL would escape the unique
             // indexes). identity is the normalised destination: one per owner. At most one default
             // UMA deposit account per customer, decided by the database under any concurrency.
             R"(CREATE TABLE external_accounts (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                customer_id TEXT NOT NULL,
                account_type TEXT NOT NULL,
                currency TEXT NOT NULL,
                account_info TEXT NOT NULL,
                identity TEXT NOT NULL,
                primary_identifier TEXT NOT NULL,
                status TEXT NOT NULL,
                beneficiary_verification_status TEXT NOT NULL,
                origin TEXT NOT NULL,
                beneficiary_name TEXT,
                platform_account_id TEXT,
                beneficiary_verified_name TEXT,
                default_uma_deposit INTEGER NOT NULL,
                screening_due_at_ms BIGINT,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL))",
             "CREATE INDEX external_accounts_by_tenant ON external_accounts (platform_id, "
             "environment, id)",
             "CREATE UNIQUE INDEX external_accounts_identity ON external_accounts (platform_id, "
             "environment, "
             "customer_id, identity)",
             "CREATE UNIQUE INDEX external_accounts_default_uma ON external_accounts (platform_id, "
             "environment, "
             "customer_id) WHERE default_uma_deposit = 1",
             "CREATE INDEX external_accounts_screening_due ON external_accounts "
             "(screening_due_at_ms) WHERE "
             "screening_due_at_ms IS NOT NULL",
             // Link tokens and the public tokens issued for them are stored only as SHA-256 hashes.
             R"(CREATE TABLE bank_link_tokens (
                token_hash TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                customer_id TEXT NOT NULL,
                expires_at_ms BIGINT NOT NULL,
                public_token_hash TEXT,
                bank_id TEXT,
                bank_account_id TEXT,
                used_at_ms BIGINT,
                external_account_id TEXT,
                created_at_ms BIGINT NOT NULL))",
         }},
        {7,
         "uma keys and nonces",
         {
             // One signing and one encryption key per platform environment, with the self-signed
             // certificate published at /.well-known/lnurlpubkey. Hex text, portable to both
             // stores.
             R"(CREATE TABLE uma_keys (
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                purpose TEXT NOT NULL,
                private_key TEXT NOT NULL,
                certificate TEXT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                PRIMARY KEY (platform_id, environment, purpose)))",
             // Nonces seen in signed UMA messages, per counterparty domain: a replay is refused.
             R"(CREATE TABLE uma_nonces (
                scope TEXT NOT NULL,
                nonce TEXT NOT NULL,
                timestamp_s BIGINT NOT NULL,
                seen_at_ms BIGINT NOT NULL,
                PRIMARY KEY (scope, nonce)))",
             "CREATE INDEX uma_nonces_by_timestamp ON uma_nonces (timestamp_s)",
         }},
        {8,
         "bulk import jobs and kyc links",
         {
             // A job's CSV stays on disk; resume_offset is the byte where the next unprocessed
             // record starts, advanced in the same transaction as the customers made from the
             // records before it, so a resumed job never creates a customer twice.
             R"(CREATE TABLE bulk_import_jobs (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                status TEXT NOT NULL,
                file_path TEXT NOT NULL,
                total_rows BIGINT NOT NULL,
                processed_rows BIGINT NOT NULL,
                successful_rows BIGINT NOT NULL,
                failed_rows BIGINT NOT NULL,
                resume_offset BIGINT NOT NULL,
                resume_row BIGINT NOT NULL,
                lease_owner TEXT,
                lease_until_ms BIGINT NOT NULL,
                created_at_ms BIGINT NOT NULL,
                updated_at_ms BIGINT NOT NULL,
                completed_at_ms BIGINT))",
             "CREATE INDEX bulk_import_jobs_open ON bulk_import_jobs (status, lease_until_ms)",
             R"(CREATE TABLE bulk_import_errors (
                job_id TEXT NOT NULL REFERENCES bulk_import_jobs(id),
                row_number BIGINT NOT NULL,
                code TEXT NOT NULL,
                message TEXT NOT NULL,
                details TEXT NOT NULL,
                correlation_id TEXT NOT NULL,
                PRIMARY KEY (job_id, row_number)))",
             // Only the SHA-256 of a link's token is stored: the database never holds a usable
             // link.
             R"(CREATE TABLE kyc_links (
                token_hash TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                customer_id TEXT NOT NULL REFERENCES customers(id),
                redirect_uri TEXT,
                expires_at_ms BIGINT NOT NULL,
                used_at_ms BIGINT,
                created_at_ms BIGINT NOT NULL))",
             R"(CREATE TABLE kyc_reviews (
                id TEXT PRIMARY KEY,
                platform_id TEXT NOT NULL REFERENCES platforms(id),
                environment TEXT NOT NULL,
                customer_id TEXT NOT NULL REFERENCES customers(id),
                subject_name TEXT NOT NULL,
                decide_at_ms BIGINT NOT NULL,
                decision TEXT,
                decided_at_ms BIGINT,
                created_at_ms BIGINT NOT NULL))",
             "CREATE INDEX kyc_reviews_due ON kyc_reviews (environment, decision, decide_at_ms)",
         }},
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
             // payload ("z1:" and base64, ledger/store/event_payloads.hpp) that an older binary would
             // send as it is; the version stops such a binary at start-up. Rows stored before
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
    };
    return migrations;
}

void ensure_migrations_table(soci::session& session) {
    session << "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
               "name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)";
}

// Serialises concurrent `migrate` runs of several processes until the transaction ends. SQLite
// needs nothing more: write_transaction already holds its single write lock.
void lock_migrations(soci::session& session) {
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT pg_advisory_xact_lock(7244011)";
    }
}

bool migrations_table_exists(soci::session& session) {
    int found = 0;
    if (backend_of(session) == database_backend::postgresql) {
        session << "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = "
                   "current_schema() AND table_name = 'schema_migrations'",
            soci::into(found);
    } else {
        session << "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
                   "'schema_migrations'",
            soci::into(found);
    }
    return found > 0;
}

std::set<int> applied_versions(soci::session& session) {
    std::set<int> versions;
    if (!migrations_table_exists(session)) return versions;
    soci::rowset<int> rows = (session.prepare << "SELECT version FROM schema_migrations");
    for (int version : rows) versions.insert(version);
    return versions;
}

std::string joined(const std::vector<int>& versions) {
    std::string out;
    for (int version : versions) out += (out.empty() ? "" : ", ") + std::to_string(version);
    return out;
}

// What a migration found that the operator must act on (written by its own statements into
// schema_migration_notes), on the standard error stream where the process logs.
void report_notes(soci::session& session, int version) {
    if (version < 20) return;  // the notes table comes with migration 20
    std::string note;
    soci::statement select = (session.prepare << "SELECT note FROM schema_migration_notes WHERE "
                                                 "version = :v",
                              soci::use(version), soci::into(note));
    select.execute(false);
    while (select.fetch()) std::cerr << "migration " << version << ": " << note << std::endl;
}

}  // namespace

schema_status read_schema_status(soci::session& session) {
    schema_status status;
    status.binary_version = latest_migration_version();
    auto applied = applied_versions(session);
    if (!applied.empty()) status.database_version = *applied.rbegin();
    std::set<int> known;
    for (const auto& step : all_migrations()) {
        known.insert(step.version);
        if (!applied.contains(step.version)) status.pending.push_back({step.version, step.name});
    }
    for (int version : applied) {
        if (!known.contains(version)) status.unknown.push_back(version);
    }
    return status;
}

std::vector<migration_step> known_migrations() {
    std::vector<migration_step> out;
    for (const auto& step : all_migrations()) out.push_back({step.version, step.name});
    return out;
}

std::string newer_schema_message(const schema_status& status) {
    std::string message =
        "the database schema (version " + std::to_string(status.database_version) +
        ") is newer than this binary (schema version " + std::to_string(status.binary_version) +
        "): it holds migration(s) " + joined(status.unknown) + " that this binary does not know";
    return message + ". Run a Corridor release of schema version " +
           std::to_string(std::max(status.database_version, status.binary_version)) +
           " or later, or restore a backup taken before the upgrade";
}

void require_current_schema(soci::session& session) {
    auto status = read_schema_status(session);
    if (status.newer_than_binary()) throw schema_newer_than_binary(newer_schema_message(status));
    if (!status.pending.empty()) {
        std::vector<int> pending;
        for (const auto& step : status.pending) pending.push_back(step.version);
        throw schema_not_migrated(
            "the database schema is at version " + std::to_string(status.database_version) +
            " and this binary needs version " + std::to_string(status.binary_version) +
            " (pending migration(s) " + joined(pending) + "): run `corridor migrate` first");
    }
}

int latest_migration_version() {
    int latest = 0;
    for (const auto& step : all_migrations()) latest = std::max(latest, step.version);
    return latest;
}

int migration_count() {
    return static_cast<int>(all_migrations().size());
}

int applied_migration_version(soci::session& session) {
    ensure_migrations_table(session);
    int version = 0;
    soci::indicator indicator = soci::i_null;
    session << "SELECT MAX(version) FROM schema_migrations", soci::into(version, indicator);
    return indicator == soci::i_ok ? version : 0;
}

int apply_migrations(soci::session& session) {
    int applied = apply_migrations_up_to(session, latest_migration_version());
    CORRIDOR_ASSERT(applied_migration_version(session) == latest_migration_version());
    return applied;
}

int apply_migrations_up_to(soci::session& session, int version_max) {
    {
        // CREATE TABLE IF NOT EXISTS is not safe against itself on PostgreSQL: two sessions
        // that both find the table missing collide on the catalog's unique index. Take the lock.
        write_transaction transaction(session);
        lock_migrations(session);
        ensure_migrations_table(session);
        // Checked under the lock: a newer binary migrating at the same moment is seen here.
        auto status = read_schema_status(session);
        if (status.newer_than_binary())
            throw schema_newer_than_binary(newer_schema_message(status));
        transaction.commit();
    }
    int applied = 0;
    system_clock wall;
    for (const auto& step : all_migrations()) {
        if (step.version > version_max) break;
        write_transaction transaction(session);
        lock_migrations(session);
        int present = 0;
        session << "SELECT COUNT(*) FROM schema_migrations WHERE version = :v",
            soci::use(step.version), soci::into(present);
        if (present != 0) continue;
        for (const char* statement : step.statements) session << statement;
        report_notes(session, step.version);
        long long now_ms = wall.now_ms();
        std::string name = step.name;
        session << "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (:v, :n, "
                   ":t)",
            soci::use(step.version), soci::use(name), soci::use(now_ms);
        transaction.commit();
        ++applied;
    }
    return applied;
}

}  // namespace corridor
