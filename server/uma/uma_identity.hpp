#pragma once
// Who a platform environment is when it talks to other UMA providers as a sender: the domain where
// they fetch its keys (vaspDomain) and the key it signs with. Shared by lookups, pay requests and
// post-transaction callbacks.
#include <soci/soci.h>

#include <string>

#include "ledger/platforms/platform_store.hpp"
#include "uma/sender.hpp"

namespace corridor {

struct app_services;

// The domain where other providers fetch the environment's keys: its UMA domain (see
// uma_key_owner for the keys a domain shared by both environments publishes).
std::string our_vasp_domain(soci::session& session, const app_services& services,
                            const platform_config& config);

// The environment's signing identity (its keys are made on first use).
uma::sender_identity sender_identity_of(soci::session& session, app_services& services,
                                        const platform_config& config);

}  // namespace corridor
