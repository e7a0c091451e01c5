#include "server/uma/uma_identity.hpp"

#include "server/api/app.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {

std::string our_vasp_domain(soci::session&, const app_services&, const platform_config& config) {
    // Both environments sign for a shared domain with the keys it publishes (uma_key_owner), so
    // the UMA domain is where receivers fetch them, whichever environment sends.
    return config.uma_domain;
}

uma::sender_identity sender_identity_of(soci::session& session, app_services& services,
                                        const platform_config& config) {
    uma::sql_key_store keys(session, services.time, services.random,
                            services.uma_sealing ? &*services.uma_sealing : nullptr);
    return uma::sender_identity{
        our_vasp_domain(session, services, config),
        keys.keys_for(uma_key_owner(session, config), config.uma_domain).signing.secret,
        config.is_regulated};
}

}  // namespace corridor
