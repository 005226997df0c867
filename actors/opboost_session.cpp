#include "actors/opboost_session.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/local_system.hpp"
#include "actors/opboost_party.hpp"
#include "actors/support.hpp"

namespace veil::actors {

opboost_outcome run_opboost_session(opboost_config cfg,
                                    const local_options& opts) {
  auto n = cfg.parties.size();
  opboost_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.predict = cfg.predict && n > 0 && cfg.parties[0].eval.rows() > 0;
  std::vector<std::vector<std::string>> features;
  std::uint64_t rows = n > 0 ? cfg.parties[0].features.rows() : 0;
  local_config sys_cfg(opts);
  caf::actor_system sys{sys_cfg};
  std::vector<caf::actor> parties;
  for (std::size_t c = 0; c < n; ++c) {
    run.names.push_back(cfg.parties[c].name);
    features.push_back(cfg.parties[c].features.feature_names());
    parties.push_back(spawn_opboost_party(sys, std::move(cfg.parties[c]),
                                          cfg.test_seed,
                                          static_cast<std::int32_t>(c)));
  }
  auto out = run_opboost_actors(sys, std::move(parties), run);
  if (out.ok()) {
    out.result->features = std::move(features);
    out.result->rows = rows;
    out.result->test_rows = out.result->margins.size();
  }
  return out;
}

opboost_outcome run_opboost_parties(const opboost_party_config& cfg,
                                    const tls_files& tls,
                                    const local_options& opts) {
  opboost_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.bounds = cfg.bounds;
  run.load = cfg.parties;
  for (const auto& p : cfg.parties)
    run.names.push_back(p.name);
  return run_spawned<opboost_outcome>(
      cfg.parties, tls, opts, cfg.timeout, "opboost",
      [&](caf::actor_system& sys, std::vector<caf::actor> parties) {
        return run_opboost_actors(sys, std::move(parties), run);
      });
}

} // namespace veil::actors
