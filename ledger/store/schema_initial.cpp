#include "ledger/store/schema_history.hpp"

namespace corridor {

// Long on purpose: the history of the schema is data, one entry per migration, read in the
// order it applies; cut into functions it would be a list read in pieces.
std::vector<migration> initial_schema_migrations() {
    return {
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
    };
}

}  // namespace corridor
