// hone: benchmark-driven inference optimization (cli/run.h has the command line).
#include <string>
#include <vector>

#include "cli/run.h"

int main(int argc, char** argv) { return hone::cli::RunHone(std::vector<std::string>(argv, argv + argc)); }
