#include "actors/feverless_session.hpp"

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/feverless_client.hpp"
#include "actors/local_system.hpp"
#include "actors/support.hpp"

namespace veil::actors {

feverless_outcome run_feverless_session(feverless_config cfg,
                                        const local_options& opts) {
  auto n = cfg.clients.size();
  feverless_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.link = cfg.link;
  run.predict = cfg.predict && n > 0 && cfg.clients[0].eval.rows() > 0;
  run.export_splits = cfg.export_splits;
  run.parts = cfg.parts;
  return run_given<feverless_outcome>(
      std::move(cfg.clients), opts, run.names,
      [&](caf::actor_system& sys, feverless_client_spec spec, std::int32_t c) {
        return spawn_feverless_client(sys, std::move(spec), cfg.test_seed, c);
      },
      [&](caf::actor_system& sys, std::vector<caf::actor> clients) {
        return run_feverless_clients(sys, std::move(clients), run);
      });
}

feverless_outcome run_feverless_parties(const feverless_party_config& cfg,
                                        const tls_files& tls,
                                        const local_options& opts) {
  feverless_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.link = cfg.link;
  run.load = cfg.parties;
  run.export_splits = cfg.export_splits;
  run.parts = cfg.parts;
  run.restore = cfg.restore;
  for (const auto& p : cfg.parties)
    run.names.push_back(p.name);
  return run_spawned<feverless_outcome>(
      cfg.parties, tls, opts, cfg.timeout, "feverless",
      [&](caf::actor_system& sys, std::vector<caf::actor> clients) {
        return run_feverless_clients(sys, std::move(clients), run);
      });
}

} // namespace veil::actors
