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
  run.predict = cfg.predict && n > 0 && cfg.clients[0].eval.rows() > 0;
  run.export_splits = cfg.export_splits;
  std::vector<std::vector<std::string>> features;
  std::uint64_t rows = n > 0 ? cfg.clients[0].features.rows() : 0;
  local_config sys_cfg(opts);
  caf::actor_system sys{sys_cfg};
  std::vector<caf::actor> clients;
  for (std::size_t c = 0; c < n; ++c) {
    run.names.push_back(cfg.clients[c].name);
    features.push_back(cfg.clients[c].features.feature_names());
    clients.push_back(spawn_feverless_client(sys, std::move(cfg.clients[c]),
                                             cfg.test_seed,
                                             static_cast<std::int32_t>(c)));
  }
  auto out = run_feverless_clients(sys, std::move(clients), run);
  if (out.ok()) {
    out.result->features = std::move(features);
    out.result->rows = rows;
    out.result->test_rows = out.result->margins.size();
  }
  return out;
}

feverless_outcome run_feverless_parties(const feverless_party_config& cfg,
                                        const tls_files& tls,
                                        const local_options& opts) {
  feverless_run run;
  run.params = cfg.params;
  run.timeout = cfg.timeout;
  run.load = cfg.parties;
  run.export_splits = cfg.export_splits;
  for (const auto& p : cfg.parties)
    run.names.push_back(p.name);
  return run_spawned<feverless_outcome>(
      cfg.parties, tls, opts, cfg.timeout, "feverless",
      [&](caf::actor_system& sys, std::vector<caf::actor> clients) {
        return run_feverless_clients(sys, std::move(clients), run);
      });
}

} // namespace veil::actors
