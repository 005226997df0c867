#include "protocols/opboost/passive_party.hpp"

#include <stdexcept>

#include "learners/input_error.hpp"
#include "protocols/opboost/privacy.hpp"
#include "protocols/opboost/rank.hpp"
#include "protocols/opboost/validate.hpp"

namespace veil::protocols::opboost {

passive_party::passive_party(party_id self, const params& p,
                             learners::dataset data,
                             std::vector<feature_map> maps, random_engine rng)
    : self_(self), params_(p), data_(std::move(data)), maps_(std::move(maps)),
      rng_(std::move(rng)) {
  params_.validate();
  if (self_ <= 0)
    throw input_error("opboost: a Party B id must be > 0");
  if (data_.features() == 0)
    throw input_error("opboost: Party " + std::to_string(self_) +
                      " holds no feature");
  if (data_.rows() == 0 || data_.rows() >= (std::size_t{1} << 31))
    throw input_error("opboost: Party " + std::to_string(self_) +
                      " needs 1 to 2^31 - 1 rows");
  if (maps_.size() != data_.features())
    throw input_error("opboost: Party " + std::to_string(self_) + " has " +
                      std::to_string(data_.features()) + " columns but " +
                      std::to_string(maps_.size()) + " mappings");
  for (std::size_t f = 0; f < maps_.size(); ++f)
    maps_[f].validate(data_.feature_names()[f]);
  auto mech = make_desensitizer(params_.mechanism, params_.dom,
                                party_budget(params_, data_.features()));
  mechs_.assign(data_.features(), mech);
}

outbox passive_party::start() {
  if (started_)
    throw std::logic_error("opboost passive_party: start() called twice");
  started_ = true;
  auto rows = data_.rows();
  auto r = data_.features();
  schema s;
  s.rows = static_cast<std::uint32_t>(rows);
  s.names = data_.feature_names();
  s.kinds.assign(r, static_cast<std::uint8_t>(column_kind::numeric));
  s.domain_lo = params_.dom.lo;
  s.domain_hi = params_.dom.hi;
  ranks m1;
  m1.rows = s.rows;
  m1.values.reserve(rows * r);
  mapped_.resize(r);
  noisy_.resize(r);
  rank_values_.resize(r);
  distinct_.resize(r);
  for (std::size_t f = 0; f < r; ++f) {
    s.lower.push_back(maps_[f].lower);
    s.upper.push_back(maps_[f].upper);
    s.fill.push_back(maps_[f].fill);
    // B1 pre-process, B2 desensitize each value once, B3 dense ranks, B4
    // keep rank -> value.
    mapped_[f] = map_column(maps_[f], params_.dom, data_.column(f));
    auto& y = noisy_[f];
    y.resize(rows);
    for (std::size_t i = 0; i < rows; ++i)
      y[i] = mechs_[f](rng_, mapped_[f][i]);
    auto ranking = dense_rank(y);
    m1.values.insert(m1.values.end(), ranking.ranks.begin(),
                     ranking.ranks.end());
    distinct_[f] = static_cast<std::int32_t>(ranking.values.size());
    rank_values_[f] = std::move(ranking.values);
  }
  outbox out;
  out.push_back({0, std::move(s)});
  out.push_back({0, std::move(m1)});
  return out;
}

outcome<outbox> passive_party::on_message(party_id from, const message& m) {
  if (from != 0)
    return refuse(message_name(m), "message from party " +
                                       std::to_string(from) +
                                       ", expected Party A (0)");
  if (auto* q = std::get_if<split_request>(&m))
    return on_split_request(*q);
  if (auto* q = std::get_if<predict_request>(&m))
    return on_predict_request(*q);
  if (auto* f = std::get_if<failure>(&m))
    return refuse("failure", "Party A failed at " + f->step);
  return refuse(message_name(m), "unexpected at Party B");
}

outcome<outbox> passive_party::on_split_request(const split_request& m) {
  const char* step = "M2 split_request";
  if (!started_)
    return refuse(step, "before the ranks were sent");
  if (answered_)
    return refuse(step, "already answered");
  if (auto e = validate(m, distinct_))
    return *e;
  // B5: the desensitized value of each requested rank, in request order.
  split_values reply;
  reply.values.reserve(m.ranks.size());
  for (std::size_t f = 0; f + 1 < m.offsets.size(); ++f)
    for (auto k = m.offsets[f]; k < m.offsets[f + 1]; ++k)
      reply.values.push_back(static_cast<double>(
          rank_values_[f][static_cast<std::size_t>(m.ranks[k])]));
  answered_ = true;
  outbox out;
  out.push_back({0, std::move(reply)});
  return out;
}

outcome<outbox> passive_party::on_predict_request(const predict_request& m) {
  const char* step = "predict_request";
  if (m.rows != predict_.rows())
    return refuse(step, "asks for " + std::to_string(m.rows) +
                            " rows, this party holds " +
                            std::to_string(predict_.rows()));
  // Private prediction: pre-process and desensitize the new samples with
  // fresh randomness; send values, not ranks (spec §5.6).
  predict_values reply;
  reply.batch = m.batch;
  reply.rows = m.rows;
  reply.values.reserve(predict_.rows() * predict_.features());
  for (std::size_t f = 0; f < predict_.features(); ++f) {
    auto x = map_column(maps_[f], params_.dom, predict_.column(f));
    for (auto v : x)
      reply.values.push_back(static_cast<double>(mechs_[f](rng_, v)));
  }
  outbox out;
  out.push_back({0, std::move(reply)});
  return out;
}

void passive_party::set_predict_data(learners::dataset d) {
  if (d.features() != data_.features())
    throw input_error("opboost: prediction data of Party " +
                      std::to_string(self_) + " has " +
                      std::to_string(d.features()) + " columns, expected " +
                      std::to_string(data_.features()));
  for (std::size_t f = 0; f < d.features(); ++f)
    if (d.feature_names()[f] != data_.feature_names()[f])
      throw input_error("opboost: prediction column '" + d.feature_names()[f] +
                        "' differs from training column '" +
                        data_.feature_names()[f] + "'");
  predict_ = std::move(d);
}

dp::accountant passive_party::spent() const {
  dp::accountant a;
  for (std::size_t f = 0; f < mechs_.size(); ++f)
    a.add(data_.feature_names()[f], mechs_[f].cost());
  return a;
}

} // namespace veil::protocols::opboost
