// main.cpp — `tilekit`: dense matrix kernels from the command line.
#include <exception>
#include <functional>
#include <iostream>
#include <new>

#include "cli_common.hpp"

namespace {

int run(int argc, char** argv) {
  using namespace tilekit::cli;
  set_command_line(argc, argv);
  CLI::App app{"tilekit — dense matrix kernels for NVIDIA GPUs (and the CPU), verified and benchmarked"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tilekit ") + TILEKIT_VERSION_STRING);
  // Usage errors: one line, like every other tilekit error (subcommands inherit this).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("tilekit: error: ") + e.what() + " (see --help)\n";
  });
  int exit_code = kExitOk;
  add_devices_command(app, &exit_code);
  add_list_command(app, &exit_code);
  add_gemm_command(app, &exit_code);
  add_transpose_command(app, &exit_code);
  add_dot_command(app, &exit_code);
  add_bench_command(app, &exit_code);
  add_occupancy_command(app, &exit_code);
  add_inspect_command(app, &exit_code);
  add_banks_command(app, &exit_code);
  add_report_command(app, &exit_code);
  add_tune_command(app, &exit_code);
  add_accuracy_command(app, &exit_code);
  add_results_command(app, &exit_code);
  if (argc > 1 && argv[1][0] != '-') {
    // CLI11 would say "A subcommand is required", which hides the typo.
    const CLI::App& commands = app;
    std::string names;
    bool known = false;
    for (const CLI::App* sub : commands.get_subcommands(std::function<bool(const CLI::App*)>())) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "tilekit: error: unknown command '" << argv[1] << "' (commands: " << names
                << "; see --help)\n";
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and the usage hint
    return kExitUsage;
  }
  return exit_code;
}

}  // namespace

// The commands report failures as a Status; this is the last resort for anything that escaped
// them, so that no input ends in std::terminate (SIGABRT, exit 134) instead of one line.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "tilekit: error: out of memory (an allocation failed)\n";
  } catch (const std::exception& e) {
    std::cerr << "tilekit: error: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "tilekit: error: internal error: an unknown exception\n";
  }
  return tilekit::cli::kExitRuntime;
}
