#include "server/cli/plugins_check.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "rails/conformance.hpp"

namespace corridor {
namespace {

constexpr const char* check_usage =
    "usage: corridor plugins check FILE [--settings JSON|FILE] [--account JSON] [--data-dir DIR]\n"
    "                              [--hook-time-limit-ms N]\n";

// --settings takes the JSON object itself, or a file holding it.
std::string json_or_file(const std::string& value) {
    std::size_t first = value.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && value[first] == '{') return value;
    std::ifstream in(value);
    if (!in)
        throw std::invalid_argument("--settings: " + value +
                                    " is neither a JSON object nor a readable file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

int plugins_check(const std::vector<std::string>& args) {
    conformance_options options;
    try {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& arg = args[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= args.size()) throw std::invalid_argument(arg + " needs a value");
                return args[++i];
            };
            if (arg == "--settings") {
                options.settings_json = json_or_file(value());
            } else if (arg == "--account") {
                options.account_json = value();
            } else if (arg == "--data-dir") {
                options.data_dir = value();
            } else if (arg == "--hook-time-limit-ms") {
                options.hook_time_limit_ms = std::stoll(value());
                if (options.hook_time_limit_ms < 1)
                    throw std::invalid_argument("--hook-time-limit-ms must be positive");
            } else if (arg == "--help") {
                std::cout << check_usage;
                return 0;
            } else if (arg.starts_with("--") || !options.file.empty()) {
                throw std::invalid_argument("unexpected argument " + arg);
            } else {
                options.file = arg;
            }
        }
        if (options.file.empty()) throw std::invalid_argument("the plugin FILE is required");
    } catch (const std::logic_error& error) {
        std::cerr << "corridor: plugins check: " << error.what() << "\n" << check_usage;
        return 2;
    }
    // A bare name would make dlopen search the library path: the file given is the file loaded.
    if (options.file.find('/') == std::string::npos) options.file = "./" + options.file;
    try {
        return run_conformance_check(options, std::cout);
    } catch (const std::exception& error) {
        // The kit's own problems (unreadable settings, no temporary folder), not the plugin's.
        std::cout << std::flush;
        std::cerr << "corridor: plugins check: " << error.what() << std::endl;
        return 2;
    }
}

}  // namespace corridor
