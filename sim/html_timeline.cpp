// html_timeline.cpp - the --html page: the data of the timeline (the trace slices --trace writes, the timeline
// records, semaphore edges, usage counters, cost notes as --explain gives them) as compact columnar JSON with
// interned strings, embedded with the viewer (sim/html/timeline.js, .css, built into html_assets.h).
#include "sim/html_timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <unordered_map>

#include "sim/cost.h"
#include "sim/explain.h"
#include "sim/html_assets.h"

namespace nkisim::sim {
namespace {
using json = nlohmann::json;

// Times in the page are whole picoseconds (integers keep the JSON small and exact enough).
int64_t ps(double ns) { return std::isfinite(ns) ? std::llround(ns * 1000.0) : 0; }

class Strings {
 public:
  Strings() { id(""); }
  uint32_t id(const std::string& s) {
    auto [it, fresh] = ids_.emplace(s, uint32_t(list_.size()));
    if (fresh) list_.push_back(s);
    return it->second;
  }
  json to_json() const { return list_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> list_;
};

// Source locations shared by every core: (file, line) -> index into the page's location table (0 = unknown).
class Locations {
 public:
  Locations(Strings& s, const SourceLineFn& src) : s_(s), src_(src) { add("", 0); }
  uint32_t id(const SourceLoc& l) { return l.known() ? add(l.file, l.line) : 0; }
  json to_json() const { return {{"file", file_}, {"line", line_}, {"text", text_}}; }

 private:
  uint32_t add(const std::string& file, uint32_t line) {
    auto [it, fresh] = ids_.emplace(std::make_pair(file, line), uint32_t(file_.size()));
    if (fresh) {
      file_.push_back(s_.id(file));
      line_.push_back(line);
      text_.push_back(s_.id(line && src_ ? src_(file, line) : std::string()));
    }
    return it->second;
  }
  Strings& s_;
  const SourceLineFn& src_;
  std::map<std::pair<std::string, uint32_t>, uint32_t> ids_;
  std::vector<uint32_t> file_, line_, text_;
};

// A row of the page: an engine, a DMA queue, or one DMA engine's shares of a queue's transfers (folded).
struct Track {
  std::string key, label;
  int parent = -1;  // DMA engine rows: the index of their queue's row
  std::vector<const TraceEvent*> slices;
};

const char* const kEngineRows[][2] = {{"tensor", "Tensor"}, {"tensor.ls", "Tensor LoadStationary"},
                                      {"vector", "Vector"}, {"scalar", "Scalar"},
                                      {"gpsimd", "GpSimd"}, {"sync", "Sync"}};

int number_after(const std::string& s, size_t pos) { return std::atoi(s.c_str() + pos); }

json core_json(const isa::Program& p, const Result& r, const isa::TargetDesc& t, Strings& str, Locations& locs) {
  const size_t n = r.timeline.size();
  // Rows: the engines (LoadStationary only when used), then each DMA queue followed by its DMA engine rows.
  std::map<std::string, Track> by_key;
  std::map<int, std::map<int, std::string>> queues;  // queue -> engine -> key of the engine row (-1: the queue)
  for (const TraceEvent& e : r.trace) {
    std::string key = e.track;
    if (e.track.rfind("dma.e", 0) == 0) {
      int q = -1;
      if (e.instr >= 0 && size_t(e.instr) < n && r.timeline[size_t(e.instr)].transfer >= 0)
        q = r.transfers[size_t(r.timeline[size_t(e.instr)].transfer)].queue;
      const int d = number_after(e.track, 5);
      key = "dma.q" + std::to_string(q) + ".e" + std::to_string(d);
      queues[q][d] = key;
      by_key[key].label = "engine " + std::to_string(d);
    } else if (e.track.rfind("dma.q", 0) == 0) {
      const int q = number_after(e.track, 5);
      queues[q][-1] = key;
      by_key[key].label = "DMA queue " + std::to_string(q);
    }
    by_key[key].slices.push_back(&e);
  }
  std::vector<Track> rows;
  for (auto& [key, label] : kEngineRows) {
    Track& tr = by_key[key];
    if (std::string(key) == "tensor.ls" && tr.slices.empty()) continue;
    tr.label = label;
    tr.key = key;
    rows.push_back(std::move(tr));
  }
  for (auto& [q, engines] : queues) {
    int parent = -1;
    for (auto& [d, key] : engines) {  // -1 (the queue itself) comes first
      Track& tr = by_key[key];
      tr.key = key;
      if (d < 0 || q < 0) {
        if (q < 0) tr.label = "DMA " + tr.label;
        parent = d < 0 ? int(rows.size()) : -1;
      } else {
        tr.parent = parent;
      }
      rows.push_back(std::move(tr));
    }
  }
  json tracks = json::array();
  std::vector<int64_t> s_start, s_dur, s_instr;
  for (Track& tr : rows) {
    std::stable_sort(tr.slices.begin(), tr.slices.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return a->start_ns < b->start_ns; });
    tracks.push_back({{"key", tr.key},
                      {"label", tr.label},
                      {"parent", tr.parent},
                      {"off", s_start.size()},
                      {"n", tr.slices.size()}});
    for (const TraceEvent* e : tr.slices) {
      s_start.push_back(ps(e->start_ns));
      s_dur.push_back(ps(e->dur_ns));
      s_instr.push_back(e->instr);
    }
  }
  // Instructions (global id order): what the hover shows, as --explain computes it.
  std::vector<uint32_t> op(n), loc(n), operands(n), formula(n), inputs(n), cause(n), xfer(n), eng(n), idx(n);
  std::vector<int64_t> ready(n), start(n), end(n), cost(n), pred(n), predk(n);
  for (size_t g = 0; g < n; ++g) {
    const InstrTiming& rec = r.timeline[g];
    const isa::Instruction& ins = p.streams[rec.engine][rec.index];
    const isa::InstrInfo& inf = isa::info(ins.op);
    eng[g] = rec.engine;
    idx[g] = rec.index;
    op[g] = str.id(inf.mnemonic);
    loc[g] = ins.loc > 0 && ins.loc < p.locations.size() ? locs.id(p.locations[ins.loc]) : 0;
    operands[g] = str.id(operands_text(ins));
    CostNote note;
    cost_note() = &note;
    const double ns = engine_ns(ins, isa::Engine(rec.engine), t);
    cost_note() = nullptr;
    formula[g] = str.id(note.formula.empty() ? std::string(inf.cost_formula) : note.formula);
    std::string in;
    for (auto& [k, v] : note.inputs) in += (in.empty() ? "" : "; ") + k + "=" + v;
    inputs[g] = str.id(in);
    cost[g] = ps(ns);
    ready[g] = ps(rec.ready_ns);
    start[g] = ps(rec.start_ns);
    end[g] = ps(rec.end_ns);
    std::string why(rec.start_ns > rec.ready_ns ? stall_cause_name(rec.cause) : "");
    if (rec.start_ns > rec.ready_ns && rec.cause == StallCause::semaphore)
      why += " s" + std::to_string(rec.sem) + " >= " + std::to_string(rec.sem_value);
    cause[g] = str.id(why);
    pred[g] = -1;
    predk[g] = 0;
    if (rec.start_ns > rec.ready_ns && rec.pred.kind == TimingRef::Instr) {
      pred[g] = rec.pred.id;
    } else if (rec.start_ns > rec.ready_ns && rec.pred.kind == TimingRef::Transfer &&
               rec.pred.id < r.transfers.size()) {
      pred[g] = r.transfers[rec.pred.id].instr;
      predk[g] = 1;
    }
    std::string x;
    if (rec.transfer >= 0 && size_t(rec.transfer) < r.transfers.size()) {
      const TransferTiming& tt = r.transfers[size_t(rec.transfer)];
      char buf[256];
      std::snprintf(buf, sizeof buf, "queue %u, %.0f bytes in %u buffers on %u DMA engines, data %.3f .. %.3f ns",
                    tt.queue, tt.bytes, tt.buffers, tt.engines, tt.start_ns, tt.done_ns);
      x = buf;
    }
    xfer[g] = str.id(x);
  }
  // Semaphore waits: (waiting instruction, the instruction whose update satisfied it; kind 1 = its transfer).
  std::vector<int64_t> w_to, w_from, w_kind;
  for (const auto& [consumer, who] : r.sem_edges) {
    if (who.kind == TimingRef::Instr) {
      w_from.push_back(who.id);
      w_kind.push_back(0);
    } else if (who.kind == TimingRef::Transfer && who.id < r.transfers.size()) {
      w_from.push_back(r.transfers[who.id].instr);
      w_kind.push_back(1);
    } else {
      continue;
    }
    w_to.push_back(consumer);
  }
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<double>>> counters;
  for (const TraceCounter& c : r.counters) {
    auto& [ts, vs] = counters[c.name];
    ts.push_back(ps(c.t_ns));
    vs.push_back(c.value);
  }
  json cj = json::array();
  for (auto& [name, tv] : counters) cj.push_back({{"name", name}, {"t", tv.first}, {"v", tv.second}});
  return {{"kernel", p.kernel_name},
          {"total_ps", ps(r.total_ns)},
          {"tracks", tracks},
          {"slices", {{"start", s_start}, {"dur", s_dur}, {"instr", s_instr}}},
          {"instr",
           {{"engine", eng},
            {"index", idx},
            {"op", op},
            {"loc", loc},
            {"operands", operands},
            {"formula", formula},
            {"inputs", inputs},
            {"cost", cost},
            {"ready", ready},
            {"start", start},
            {"end", end},
            {"cause", cause},
            {"pred", pred},
            {"predk", predk},
            {"xfer", xfer}}},
          {"waits", {{"to", w_to}, {"from", w_from}, {"kind", w_kind}}},
          {"counters", cj}};
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

}  // namespace

void write_html_timeline(std::span<const isa::Program> programs, std::span<const Result* const> cores,
                         const isa::TargetDesc& t, const std::string& title, const SourceLineFn& source,
                         std::ostream& os) {
  Strings str;
  Locations locs(str, source);
  json cj = json::array();
  for (size_t c = 0; c < cores.size() && c < programs.size(); ++c)
    cj.push_back(core_json(programs[c], *cores[c], t, str, locs));
  json data = {{"format", "nki-sim-timeline-1"}, {"title", title},          {"target", t.name}, {"cores", cj},
               {"locations", locs.to_json()},    {"strings", str.to_json()}};
  // Inside <script>: '<' only occurs in strings, where \u003c keeps "</script>" and "<!--" out of the page.
  std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (char ch : text) {
    if (ch == '<')
      safe += "\\u003c";
    else
      safe += ch;
  }
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>nki-sim timeline: "
     << html_escape(title) << "</title>\n<style>\n"
     << html_assets::kTimelineCss << "</style>\n</head>\n<body data-state=\"loading\">\n"
     << "<script type=\"application/json\" id=\"nkisim-data\">" << safe << "</script>\n<script>\n"
     << html_assets::kTimelineJs << "</script>\n</body>\n</html>\n";
}

}  // namespace nkisim::sim
