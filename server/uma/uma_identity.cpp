#include "server/uma/uma_identity.hpp"

#include "server/api/app.hpp"
#include "server/uma/uma_receiver.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {

std::string our_vasp_domain(soci::session& session, const app_services& services,
                            const platform_config& config) {
    auto serving =
        uma_platforms_for_host(session, config.uma_domain, services.config.uma_proxy_host);
    if (!serving.empty() && serving.front().owner == config.owner) return config.uma_domain;
    return config.proxy_uma_subdomain + "." + services.config.uma_proxy_host;
}

uma::sender_identity sender_identity_of(soci::session& session, app_services& services,
                                        const platform_config& config) {
    uma::sql_key_store keys(session, services.time, services.random,
                            services.uma_sealing ? &*services.uma_sealing : nullptr);
    return uma::sender_identity{our_vasp_domain(session, services, config),
                                keys.keys_for(config.owner, config.uma_domain).signing.secret,
                                config.is_regulated};
}

}  // namespace corridor
