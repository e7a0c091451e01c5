#include "rails/loader.hpp"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace corridor {
namespace {

std::string span_text(corridor_rail_type_span s) {
    return s.ptr == nullptr ? std::string() : std::string(s.ptr, s.length);
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw rail_load_error("rail plugin " + path + ": " + why);
}

std::string version_text(unsigned major, unsigned minor) {
    return std::to_string(major) + "." + std::to_string(minor);
}

// The checks of rail_abi.h VERSIONING, before any hook of the plugin runs.
void check_table(const std::string& path, const corridor_rail_plugin* table) {
    if (table == nullptr) refuse(path, "its entry point returned no table");
    const corridor_rail_type_magic& magic = table->magic;
    if (magic.struct_size < sizeof(corridor_rail_type_magic)) {
        refuse(path, "its version block is " + std::to_string(magic.struct_size) +
                         " bytes, expected at least " +
                         std::to_string(sizeof(corridor_rail_type_magic)));
    }
    // The major version first: with another major the rest of the table may mean something else.
    if (magic.abi_major != CORRIDOR_RAIL_ABI_MAJOR) {
        refuse(path, "it was built for rail ABI " + version_text(magic.abi_major, magic.abi_minor) +
                         "; this Corridor speaks rail ABI " +
                         version_text(CORRIDOR_RAIL_ABI_MAJOR, CORRIDOR_RAIL_ABI_MINOR) +
                         " (the major versions must match)");
    }
    if (magic.abi_minor > CORRIDOR_RAIL_ABI_MINOR) {
        refuse(path, "it was built for rail ABI " + version_text(magic.abi_major, magic.abi_minor) +
                         ", newer than this Corridor's " +
                         version_text(CORRIDOR_RAIL_ABI_MAJOR, CORRIDOR_RAIL_ABI_MINOR) +
                         "; upgrade Corridor or rebuild the plugin");
    }
    std::string signature = span_text(magic.build_signature);
    if (signature != CORRIDOR_RAIL_BUILD_SIGNATURE) {
        refuse(path, "its build signature is \"" + signature + "\", this Corridor's is \"" +
                         CORRIDOR_RAIL_BUILD_SIGNATURE + "\" (built for another platform)");
    }
    if (magic.table_size < CORRIDOR_RAIL_PLUGIN_SIZE_V1_0) {
        refuse(path, "its hook table is " + std::to_string(magic.table_size) +
                         " bytes, smaller than the " +
                         std::to_string(CORRIDOR_RAIL_PLUGIN_SIZE_V1_0) + " bytes of rail ABI 1.0");
    }
    std::string name = span_text(table->name);
    if (!valid_rail_name(name)) {
        refuse(path, "it declares the name \"" + name + "\"; a rail name is 1 to 32 of [a-z0-9_-]");
    }
    if (table->account_type_count == 0 || table->account_types == nullptr) {
        refuse(path, "it declares no account types");
    }
    // An account type the interface does not know would load and then never be served: every
    // external account of it is refused at the API. Refused here, naming the list.
    for (uint32_t i = 0; i < table->account_type_count; ++i) {
        std::string type = span_text(table->account_types[i]);
        const auto& known = rail_account_types();
        if (std::find(known.begin(), known.end(), type) == known.end()) {
            refuse(path, "it declares the account type \"" + type +
                             "\", which is not one of the interface's account types (" +
                             rail_account_type_list() + ")");
        }
    }
    if (table->create == nullptr || table->destroy == nullptr ||
        table->validate_account == nullptr || table->funding_instructions == nullptr ||
        table->initiate == nullptr) {
        refuse(path, "its hook table leaves a required hook empty");
    }
    if (table->tick_interval_ms > 0 && table->tick == nullptr) {
        refuse(path, "it asks for ticks every " + std::to_string(table->tick_interval_ms) +
                         " ms but has no tick hook");
    }
}

}  // namespace

const std::vector<std::string>& rail_account_types() {
#define CORRIDOR_RAIL_TYPE_NAME(name) #name,
    static const std::vector<std::string> types = {
        CORRIDOR_RAIL_FOR_EACH_ACCOUNT_TYPE(CORRIDOR_RAIL_TYPE_NAME)};
#undef CORRIDOR_RAIL_TYPE_NAME
    return types;
}

std::string rail_account_type_list() {
    std::string out;
    for (const auto& type : rail_account_types()) out += (out.empty() ? "" : ", ") + type;
    return out;
}

std::string find_rail_file(const std::vector<std::string>& dirs, const std::string& name) {
    for (const auto& dir : dirs) {
        auto path = std::filesystem::path(dir) / (name + ".so");
        if (std::filesystem::exists(path)) return path.string();
    }
    return (std::filesystem::path(dirs.empty() ? std::string(".") : dirs.front()) / (name + ".so"))
        .string();
}

void make_rail_data_dir(const std::string& path, const std::string& settings_json) {
    boost::system::error_code parse_error;
    auto settings = boost::json::parse(settings_json, parse_error);
    if (parse_error || !settings.is_object()) return;  // the plugin's create says what is wrong
    const auto* value = settings.as_object().if_contains("data_dir");
    if (value == nullptr || !value->is_string() || value->as_string().empty()) return;
    std::filesystem::path dir(std::string(value->as_string()));
    std::error_code error;
    if (std::filesystem::is_directory(dir, error)) return;
    if (dir.has_parent_path() && !dir.parent_path().empty())
        std::filesystem::create_directories(dir.parent_path(), error);
    if (error) {
        refuse(path, "its data_dir " + dir.string() + " cannot be made (" + error.message() + ")");
    }
    // The rail's own files (keys, journals of payments): nobody else reads them.
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        refuse(path,
               "its data_dir " + dir.string() + " cannot be made (" + std::strerror(errno) + ")");
    }
    if (!std::filesystem::is_directory(dir, error))
        refuse(path, "its data_dir " + dir.string() + " is not a folder");
}

bool valid_rail_name(const std::string& name) {
    if (name.empty() || name.size() > 32) return false;
    for (char c : name) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

std::string sha256_file_hex(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw rail_load_error("rail plugin " + path + ": cannot be read");
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
    if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
        throw rail_load_error("rail plugin " + path + ": SHA-256 unavailable");
    }
    std::array<char, 65536> buffer;
    while (in) {
        in.read(buffer.data(), buffer.size());
        if (in.gcount() > 0)
            EVP_DigestUpdate(context.get(), buffer.data(), static_cast<size_t>(in.gcount()));
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context.get(), digest, &length);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(hex[digest[i] >> 4]);
        out.push_back(hex[digest[i] & 15]);
    }
    return out;
}

const corridor_rail_plugin* open_rail_plugin(const std::string& path, const std::string& sha256_pin,
                                             const corridor_rail_host_api* host) {
    if (!std::filesystem::is_regular_file(path)) refuse(path, "no such file");
    if (!sha256_pin.empty()) {
        std::string actual = sha256_file_hex(path);
        if (actual != sha256_pin) {
            refuse(path, "its SHA-256 is " + actual + " but the configuration pins " + sha256_pin);
        }
    }
    // dlerror's state is per process on some platforms: keep dlopen+dlerror pairs together.
    static std::mutex dl_mutex;
    std::unique_lock lock(dl_mutex);
    // Never dlclose'd: the host keeps pointers into the plugin for the life of the process.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = dlerror();
        refuse(path, std::string("cannot be loaded: ") + (why ? why : "unknown dlopen error"));
    }
    dlerror();
    void* symbol = dlsym(handle, CORRIDOR_RAIL_ENTRY_SYMBOL);
    if (symbol == nullptr) {
        refuse(path, "it exports no " CORRIDOR_RAIL_ENTRY_SYMBOL
                     " symbol; it is not a Corridor rail plugin");
    }
    lock.unlock();
    auto entry = reinterpret_cast<corridor_rail_entry_fn>(symbol);
    const corridor_rail_plugin* table = nullptr;
    int32_t code = entry(host, &table);
    std::string host_abi = version_text(CORRIDOR_RAIL_ABI_MAJOR, CORRIDOR_RAIL_ABI_MINOR);
    if (code != CORRIDOR_RAIL_OK) {
        // A refusing entry point may still hand out its table (rail_abi.h 1.3): its frozen
        // version block says which ABI the plugin was built for.
        if (table != nullptr && table->magic.struct_size >= sizeof(corridor_rail_type_magic)) {
            refuse(path, "it was built for rail ABI " +
                             version_text(table->magic.abi_major, table->magic.abi_minor) +
                             " and its entry point refused this Corridor's rail ABI " + host_abi +
                             " (status " + std::string(to_string(rail_status_from(code))) +
                             (table->magic.abi_major != CORRIDOR_RAIL_ABI_MAJOR
                                  ? "; the major versions must match)"
                                  : ")"));
        }
        refuse(path, "its entry point refused this Corridor's rail ABI " + host_abi + " (status " +
                         std::string(to_string(rail_status_from(code))) +
                         "); rebuild the plugin against this Corridor's rail SDK");
    }
    check_table(path, table);
    return table;
}

std::unique_ptr<rail_instance> load_rail_file(const std::string& path,
                                              const std::string& expected_name,
                                              const std::string& sha256_pin,
                                              const std::string& settings_json,
                                              rail_log_sink* log) {
    const corridor_rail_plugin* table =
        open_rail_plugin(path, sha256_pin, rail_instance::host_api());
    std::string name = span_text(table->name);
    if (!expected_name.empty() && name != expected_name) {
        refuse(path, "it declares the name \"" + name + "\" but is configured as \"" +
                         expected_name + "\"");
    }
    std::string settings = settings_json.empty() ? std::string("{}") : settings_json;
    make_rail_data_dir(path, settings);
    auto rail = std::make_unique<rail_instance>(path, table, log);
    auto created = rail->create(settings);
    if (!created.ok()) {
        // The SDK gives the caller a generic message for an unexpected exception and logs its
        // text: at start-up the operator needs that text, so it joins the message.
        std::string message = created.message;
        const std::string& logged = rail->last_logged_error();
        if (!logged.empty() && message.find(logged) == std::string::npos)
            message += " (the plugin logged: " + logged + ")";
        refuse(path, "its create hook failed (" + std::string(to_string(created.status)) +
                         "): " + message);
    }
    return rail;
}

namespace {

void check_rail_names(const rail_load_config& config) {
    for (const auto& name : config.rails) {
        if (!valid_rail_name(name)) {
            throw rail_load_error("plugins.rails: \"" + name +
                                  "\" is not a rail name (1 to 32 of [a-z0-9_-], no paths)");
        }
    }
    for (const auto& [name, pin] : config.sha256_pins) {
        bool listed = false;
        for (const auto& rail : config.rails) listed = listed || rail == name;
        if (!listed)
            throw rail_load_error("plugins.sha256: \"" + name + "\" is not in plugins.rails");
    }
}

std::string setting_of(const std::map<std::string, std::string>& map, const std::string& name) {
    auto found = map.find(name);
    return found == map.end() ? std::string() : found->second;
}

}  // namespace

std::vector<rail_load_attempt> load_each_rail(const rail_load_config& config, rail_log_sink* log) {
    check_rail_names(config);
    std::vector<rail_load_attempt> out;
    for (const auto& name : config.rails) {
        rail_load_attempt attempt;
        attempt.name = name;
        attempt.file = find_rail_file(config.plugins_dirs, name);
        try {
            attempt.rail = load_rail_file(attempt.file, name, setting_of(config.sha256_pins, name),
                                          setting_of(config.settings_json, name), log);
        } catch (const rail_load_error& error) {
            attempt.error = error.what();
        }
        out.push_back(std::move(attempt));
    }
    return out;
}

rail_registry load_rails(const rail_load_config& config, rail_log_sink* log) {
    rail_registry registry;
    check_rail_names(config);
    for (const auto& name : config.rails) {
        std::string path = find_rail_file(config.plugins_dirs, name);
        if (config.plugins_dirs.size() > 1 && !std::filesystem::exists(path)) {
            std::string searched;
            for (const auto& dir : config.plugins_dirs)
                searched += (searched.empty() ? "" : ", ") + dir;
            refuse(name + ".so", "no such file in any folder of plugins.dir (" + searched + ")");
        }
        auto pin = config.sha256_pins.find(name);
        auto settings = config.settings_json.find(name);
        registry.add(load_rail_file(path, name, pin == config.sha256_pins.end() ? "" : pin->second,
                                    settings == config.settings_json.end() ? "" : settings->second,
                                    log));
    }
    return registry;
}

}  // namespace corridor
