#pragma once
// What a delivery needs of its tenant and of its stored row, shared by the claim rounds
// (webhook_deliveries.cpp) and the read-back of events handed over at their commit
// (handed_over.cpp).
#include <soci/soci.h>

#include <map>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/store/outbox.hpp"

namespace corridor {

// The stored name of a purpose (outbox.hpp to_string) back to its value.
event_purpose purpose_from(const std::string& name);

struct tenant_delivery_facts {
    std::string url;  // empty: no endpoint
    std::string private_key_pem;
};

// Each tenant's endpoint and signing key, read once per round: the key in force now (a due next
// key takes over here, the one write this may make).
class tenant_delivery_facts_cache {
public:
    tenant_delivery_facts_cache(soci::session& session, const clock& time)
        : session_(session), time_(time) {}
    const tenant_delivery_facts& of(const tenant& owner);

private:
    soci::session& session_;
    const clock& time_;
    std::map<std::string, tenant_delivery_facts> facts_;  // platform|environment
};

}  // namespace corridor
