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
  run.link = cfg.link;
  run.predict = cfg.predict && n > 0 && cfg.parties[0].eval.rows() > 0;
  run.parts = cfg.parts;
  return run_given<opboost_outcome>(
      std::move(cfg.parties), opts, run.names,
      [&](caf::actor_system& sys, opboost_party_spec spec, std::int32_t c) {
        return spawn_opboost_party(sys, std::move(spec), cfg.test_seed, c);
      },
      [&](caf::actor_system& sys, std::vector<caf::actor> parties) {
        return run_opboost_actors(sys, std::move(parties), run);
      });
}

opboost_outcome run_opboost_parties(const opboost_party_config& cfg,
                                    const tls_files& tls,
                                    const local_options& opts) {
  opboost_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.link = cfg.link;
  run.bounds = cfg.bounds;
  run.load = cfg.parties;
  run.parts = cfg.parts;
  run.restore = cfg.restore;
  run.features = cfg.features;
  for (const auto& p : cfg.parties)
    run.names.push_back(p.name);
  return run_spawned<opboost_outcome>(
      cfg.parties, tls, opts, cfg.timeout, "opboost",
      [&](caf::actor_system& sys, std::vector<caf::actor> parties) {
        return run_opboost_actors(sys, std::move(parties), run);
      });
}

} // namespace veil::actors
