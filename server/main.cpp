#include "server/cli/cli.hpp"

int main(int argc, char** argv) { return corridor::run_cli(argc, argv); }
