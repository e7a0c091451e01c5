#pragma once
// The operator's command line: serve, migrate, platform create, token create (design.md section 6).
namespace corridor {
int run_cli(int argc, char** argv);
}
