// build_id.cpp — which tilekit build this is, for the tune cache's staleness check. Alone in its
// file because the generated header changes with every commit: only this file recompiles then.
#include "tilekit/tune_cache.hpp"
#include "tilekit_git_commit.h"  // generated at build time: TILEKIT_GIT_COMMIT

namespace tilekit {

std::string tilekit_build_id() { return std::string(TILEKIT_VERSION_STRING) + "+" + TILEKIT_GIT_COMMIT; }

}  // namespace tilekit
